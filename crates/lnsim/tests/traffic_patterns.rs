//! The destination patterns of the shared traffic layer on the credit-level (InfiniBand) model:
//! a generator with a permutation sends each HCA's messages to its image only, fixed points stay
//! silent, and patterns or keys that do not apply are refused naming the key.

mod common;
use common::{input_error, run, write};

/// 4×4 mesh, one HCA per switch (16 HCAs: LID − 1 = switch index, x first), greedy traffic.
const MESH: &str = "[sim]\nmodel = \"credit\"\nend_time = \"1ms\"\ninterval = \"0.5ms\"\n\
                    [topology]\nkind = \"mesh\"\ndims = [4, 4]\nhcas_per_switch = 1\n\
                    [[traffic.generators]]\nsources = \"all\"\n";

fn hca_name(i: u32) -> String {
    // H{row}{col}{k}: index = (row−1)·4 + (col−1)
    format!("H{}{}1", i / 4 + 1, i % 4 + 1)
}

#[test]
fn perfect_shuffle_sends_each_hca_to_its_image_only() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "shuffle.toml",
        &format!("{MESH}pattern = \"shuffle\"\n"),
    );
    let s = run(&p, &d.path().join("out"), &[]);
    let flows = s["flows"].as_array().unwrap();
    // 4 index bits rotated left: 0000 and 1111 are fixed points and send nothing
    let image = |i: u32| ((i << 1) | (i >> 3)) & 0xF;
    let mut senders = Vec::new();
    for f in flows {
        let src = f["src"].as_str().unwrap();
        let i = (0..16).find(|&i| hca_name(i) == src).unwrap();
        assert_eq!(f["dst"].as_str().unwrap(), hca_name(image(i)), "flow {f}");
        assert!(
            f["rx_bytes"].as_u64().unwrap() > 0,
            "flow {f} delivered nothing"
        );
        senders.push(i);
    }
    senders.sort_unstable();
    let want: Vec<u32> = (0..16).filter(|&i| image(i) != i).collect();
    assert_eq!(senders, want);
    assert_eq!(s["conservation"]["ok"], true);
}

#[test]
fn bit_complement_and_transpose_on_the_mesh() {
    let d = tempfile::tempdir().unwrap();
    for (pattern, senders, image) in [
        (
            "bit_complement",
            16,
            Box::new(|i: u32| i ^ 0xF) as Box<dyn Fn(u32) -> u32>,
        ),
        // (x, y) → (y, x): index y·4 + x → x·4 + y; the diagonal stays silent
        ("transpose", 12, Box::new(|i: u32| (i % 4) * 4 + i / 4)),
    ] {
        let p = write(
            d.path(),
            &format!("{pattern}.toml"),
            &format!("{MESH}pattern = \"{pattern}\"\n"),
        );
        let s = run(&p, &d.path().join(pattern), &[]);
        let flows = s["flows"].as_array().unwrap();
        assert_eq!(flows.len(), senders, "{pattern}");
        for f in flows {
            let i = (0..16)
                .find(|&i| hca_name(i) == f["src"].as_str().unwrap())
                .unwrap();
            assert_eq!(f["dst"].as_str().unwrap(), hca_name(image(i)), "{pattern}");
        }
    }
}

#[test]
fn inapplicable_patterns_and_keys_are_refused_by_name() {
    let cases: [(&str, &str, &str); 6] = [
        (
            "pattern = \"shuffle\"\ndestinations = [\"H111\", \"H121\"]\n",
            "traffic.generators[0].destinations: ",
            "does not apply to pattern \"shuffle\"",
        ),
        (
            "pattern = \"shuffle\"\nhotspot = \"H111\"\nhotspot_fraction = 0.5\n",
            "traffic.generators[0].hotspot: ",
            "does not apply",
        ),
        (
            "pattern = \"adv\"\n",
            "traffic.generators[0].pattern: ",
            "applies only to Dragonfly topologies",
        ),
        (
            "pattern = \"mix\"\n",
            "traffic.generators[0].pattern: ",
            "cycle-level model",
        ),
        (
            "pattern = \"hotspot\"\n",
            "traffic.generators[0].hotspot: ",
            "needs `hotspot`",
        ),
        (
            "pattern = \"bit_reversal\"\n",
            // a 3×3 mesh has 9 switches
            "traffic.generators[0].pattern: ",
            "power-of-two",
        ),
    ];
    for (i, (extra, key, what)) in cases.iter().enumerate() {
        let mut text = format!("{MESH}{extra}");
        if i == 5 {
            text = text.replace("dims = [4, 4]", "dims = [3, 3]");
        }
        let e = input_error(&text, &[], &[]);
        assert!(e.starts_with(key) && e.contains(what), "{extra:?}: {e}");
    }
}

#[test]
fn hotspot_pattern_is_the_uniform_generator_with_a_hotspot() {
    // `pattern = "hotspot"` and `pattern = "uniform"` with the same hotspot keys are one pattern
    let d = tempfile::tempdir().unwrap();
    let hot = "hotspot = \"H111\"\nhotspot_fraction = 0.5\n";
    let a = write(
        d.path(),
        "a.toml",
        &format!("{MESH}pattern = \"hotspot\"\n{hot}"),
    );
    let b = write(d.path(), "b.toml", &format!("{MESH}{hot}"));
    let sa = run(&a, &d.path().join("a"), &[]);
    let sb = run(&b, &d.path().join("b"), &[]);
    assert_eq!(sa["flows"], sb["flows"]);
    assert_eq!(sa["nodes"], sb["nodes"]);
}
