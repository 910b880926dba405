//! OpenSM's `dfsssp` engine in a run (docs/opensm-routing.md): the tables and the SL per
//! (source, destination) pair it computes make a torus deadlock-free under the channel-
//! dependency check that refuses minhop there, and a short run keeps every packet, data and
//! congestion notifications on their pairs' layers; combinations that cannot work are refused
//! naming both keys.

mod common;
use common::{input_error, run, write};

/// A small torus (`dims`, one HCA per switch) under OpenSM's `engine`, uniform Poisson traffic
/// at 40 % of the link rate, a few microseconds.
fn torus(dims: &str, engine: &str, vls: u32) -> String {
    format!(
        "[sim]\nmodel = \"credit\"\nend_time = \"30us\"\nwarmup = \"10us\"\ninterval = \"10us\"\nseed = 3\n\
         [topology]\nkind = \"torus\"\ndims = {dims}\nhcas_per_switch = 1\n\
         [links.host]\nwidth = \"4x\"\nspeed = \"QDR\"\ndelay = \"5ns\"\n\
         [links.fabric]\nwidth = \"4x\"\nspeed = \"QDR\"\ndelay = \"5ns\"\n\
         [switch]\nvls = {vls}\n\
         [routing]\nalgorithm = \"opensm\"\nengine = \"{engine}\"\n\
         [[traffic.generators]]\nsources = \"all\"\ndestinations = \"all\"\npattern = \"uniform\"\n\
         injection = \"poisson\"\nrate = \"12.8Gbps\"\n"
    )
}

#[test]
fn dfsssp_runs_tori_deadlock_free_where_minhop_is_refused() {
    for (dims, hcas) in [("[3, 3, 3]", 27u64), ("[8, 8]", 64)] {
        let e = input_error(&torus(dims, "minhop", 8), &[], &[]);
        assert!(e.contains("can deadlock"), "{dims}: {e}");
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), "t.toml", &torus(dims, "dfsssp", 8));
        // with congestion control on, the notifications take their own pairs' layers
        let s = run(&p, &d.path().join("out"), &["cc.enabled=true"]);
        assert_eq!(s["conservation"]["ok"], true, "{dims}");
        assert!(s["deadlock"].is_null(), "{dims}");
        assert!(s["conservation"]["delivered_packets"].as_u64().unwrap() > 0);
        let layers: Vec<u64> = s["routing"]["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert!(layers.len() >= 2 && layers.len() <= 8, "{dims}: {layers:?}");
        assert_eq!(layers.iter().sum::<u64>(), hcas * (hcas - 1), "{dims}");
        assert!(s["route_balance"]["switch_links"]["max"].as_u64().unwrap() > 0);
        // the same routes on one VL (sssp) are refused as minhop's are
        let e = input_error(&torus(dims, "sssp", 8), &[], &[]);
        assert!(e.contains("can deadlock"), "{dims}: {e}");
    }
}

#[test]
fn what_cannot_combine_with_the_routings_sls_is_refused_naming_both_keys() {
    let t = torus("[3, 3, 3]", "dfsssp", 4);
    let e = input_error(&t, &[], &["switch.vls=1"]);
    assert!(e.starts_with("switch.vls:") && e.contains("needs"), "{e}");
    for (overrides, key) in [
        (vec!["drb.enabled=true"], "drb.enabled"),
        (
            vec![
                "switch.queue_mapping=\"ddbbm\"",
                "switch.dbbm_queues=2",
                "ddbbm.mapping=\"virtual_lanes\"",
            ],
            "ddbbm.mapping",
        ),
        (vec!["cc.enabled=true", "cc.cnp_vl=1"], "cc.cnp_vl"),
        // the CA's SL-level reaction keys by the flow's VL, not the routing's SL per pair
        (vec!["cc.enabled=true", "cc.level=\"sl\""], "cc.level"),
        (
            vec!["traffic.generators[0].vl=1"],
            "traffic.generators[0].vl",
        ),
    ] {
        let e = input_error(&t, &[], &overrides);
        assert!(
            e.starts_with(&format!("{key}:")) && e.contains("routing.engine = \"dfsssp\""),
            "{key}: {e}"
        );
    }
}
