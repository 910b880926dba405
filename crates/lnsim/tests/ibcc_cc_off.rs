//! The CC-off share tables of the InfiniBand CC studies (spec §7.1–§7.3, §11.1 step 2),
//! run from the scenario files of `scenarios/ibcc/`.

mod common;
use common::*;

/// 4x SDR host link: 8 Gbit/s of data (spec §3.2).
const SDR: f64 = 8.0;

#[test]
fn zeru_a_parking_lot_and_victim() {
    let d = tempfile::tempdir().unwrap();
    let s = run(
        &root().join("scenarios/ibcc/zeru_a.toml"),
        &d.path().join("a"),
        &[],
    );
    // Z-Fig 4.1, 0.4–0.7 s: 25 / 50 / 25 %, victim H111 at 25 %, H221 receives 100 %
    near("H112", tx_pct(&s, "H112", SDR), 25.0, 3.0);
    near("H211", tx_pct(&s, "H211", SDR), 50.0, 3.0);
    near("H121", tx_pct(&s, "H121", SDR), 25.0, 3.0);
    near("H111 (victim)", tx_pct(&s, "H111", SDR), 25.0, 3.0);
    near("H221 rx", rx_pct(&s, "H221", SDR), 100.0, 3.0);
    near("H121 rx", rx_pct(&s, "H121", SDR), 25.0, 3.0);
}

#[test]
fn zeru_b1_parking_lot_and_dor() {
    let d = tempfile::tempdir().unwrap();
    let s = run(
        &root().join("scenarios/ibcc/zeru_b1.toml"),
        &d.path().join("b1"),
        &[],
    );
    // Z-Fig 4.3 from 0.5 s: 16.7 % for the parking-lot pairs, 33.3 % for H551, H431 not a victim
    for n in ["H111", "H151", "H511", "H541"] {
        near(n, tx_pct(&s, n, SDR), 100.0 / 6.0, 3.0);
    }
    near("H551", tx_pct(&s, "H551", SDR), 100.0 / 3.0, 3.0);
    near("H431 (not a victim)", tx_pct(&s, "H431", SDR), 100.0, 3.0);
    near("H542 rx", rx_pct(&s, "H542", SDR), 100.0, 3.0);
    near("H552 rx", rx_pct(&s, "H552", SDR), 100.0, 3.0);
}

#[test]
fn zeru_b2_victim_paced_like_h511() {
    let d = tempfile::tempdir().unwrap();
    let s = run(
        &root().join("scenarios/ibcc/zeru_b2.toml"),
        &d.path().join("b2"),
        &[],
    );
    // Z-Fig 4.5: H512 "should share the same bandwidth as the node H511"
    let h511 = tx_pct(&s, "H511", SDR);
    near("H511", h511, 100.0 / 6.0, 3.0);
    near("H512 (victim)", tx_pct(&s, "H512", SDR), h511, 3.0);
    near("H542 rx", rx_pct(&s, "H542", SDR), h511, 3.0);
}

#[test]
fn gran_s1_hol_blocking_and_parking_lot() {
    // times scaled by 1/50: the fabric reaches steady state within microseconds of each start
    let d = tempfile::tempdir().unwrap();
    let p = scaled("scenarios/ibcc/gran_s1.toml", 0.02, d.path());
    let s = run(&p, &d.path().join("s1"), &[]);
    let c = s["nodes"]["H5"]["rx_gbps_after_warmup"].as_f64().unwrap();
    // C is the end node's capacity, "just above 13 Gbps" (spec §7.1)
    assert!(c > 13.0 && c < 14.0, "bottleneck {c} Gbit/s");
    for (n, share) in [
        ("H2", 1.0 / 6.0),
        ("H3", 1.0 / 6.0),
        ("H6", 1.0 / 3.0),
        ("H7", 1.0 / 3.0),
        ("H1", 1.0 / 6.0),
    ] {
        near(n, tx_pct(&s, n, c), share * 100.0, 3.0);
    }
}

#[test]
fn gran_s2_equal_thirds() {
    let d = tempfile::tempdir().unwrap();
    let p = scaled("scenarios/ibcc/gran_s2.toml", 0.02, d.path());
    let s = run(&p, &d.path().join("s2"), &[]);
    let f: Vec<f64> = ["H1", "H2", "H3"]
        .iter()
        .map(|n| s["nodes"][*n]["tx_gbps_after_warmup"].as_f64().unwrap())
        .collect();
    let total: f64 = f.iter().sum();
    for (i, x) in f.iter().enumerate() {
        near(&format!("F{}", i + 1), x / total * 100.0, 100.0 / 3.0, 3.0);
    }
    // the S1–S2 link (4x QDR, 32 Gbit/s of data) is the bottleneck
    assert!(
        (total - 32.0).abs() < 32.0 * 0.03,
        "inter-switch total {total}"
    );
    assert!(s["fairness"]["jain"].as_f64().unwrap() > 0.99);
}
