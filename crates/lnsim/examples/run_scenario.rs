//! Developer tool: run a scenario from Rust without the Python front.
//! `cargo run --release --example run_scenario -- SCENARIO.toml [OUT_DIR] [key=value]...`

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run_scenario SCENARIO.toml [OUT_DIR] [key=value]...");
        std::process::exit(2);
    };
    let out = args.get(1).filter(|a| !a.contains('=')).cloned();
    let overrides: Vec<String> = args
        .iter()
        .skip(1)
        .filter(|a| a.contains('='))
        .cloned()
        .collect();
    let opts = lnsim::api::RunOptions {
        overrides,
        seed: None,
        out_dir: out.map(Into::into),
        progress: true,
        ..Default::default()
    };
    match lnsim::api::run_file(std::path::Path::new(path), &opts, &mut || false) {
        Ok(o) => println!("{}", o.summary_json),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(lnsim::api::exit_status(&e));
        }
    }
}
