//! Output folders that lnsim writes, and the rules that keep a user's files safe (issue 14
//! items 1 and 2).
//!
//! Every folder lnsim writes carries a small marker file, [`MARKER_FILE`] (`.lnsim`), holding
//! JSON such as `{"written_by": "lnsim", "version": "0.1.0", "kind": "results",
//! "complete": true}`. lnsim replaces a folder only when it is absent, empty, or carries this
//! marker (or is a results folder of an lnsim that wrote no markers: see
//! [`is_legacy_results`]); any other existing folder, a file, a path under a file or a place that cannot be
//! written is refused with an input error (exit status 2) saying what to do, before anything is
//! simulated. A folder that holds the current folder or the scenario's folder is never
//! replaced, marker or not.
//!
//! [`write_folder`] writes the new folder as a hidden sibling (`.NAME.tmp-PID-N`), then swaps it
//! in with two renames: the old folder is first renamed to a hidden sibling (`.NAME.old-PID-N`)
//! and removed only once the new one is in place. A crash at any point leaves either the old
//! folder, or the new complete one, or hidden siblings only: never a folder under the target
//! name that looks complete but is not, and never a user's file deleted.

use crate::error::{Error, Result};
use serde_json::{json, Value};
use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};

/// Name of the marker file inside every folder lnsim writes.
pub const MARKER_FILE: &str = ".lnsim";

/// `written_by` value of a marker.
const WRITTEN_BY: &str = "lnsim";

/// The content of a folder's marker file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// What the folder holds: `"results"` for one run.
    pub kind: String,
    /// False for a run that stopped before its end (e.g. interrupted): partial results.
    pub complete: bool,
    /// Why an incomplete run stopped (`"interrupted"`); `None` for a complete one.
    pub stop_reason: Option<String>,
}

impl Marker {
    /// The marker of one run's results folder.
    pub fn results(complete: bool, stop_reason: Option<&str>) -> Self {
        Marker {
            kind: "results".into(),
            complete,
            stop_reason: stop_reason.map(str::to_string),
        }
    }

    /// The marker file's text (one JSON object and a newline).
    pub fn to_json(&self) -> String {
        let mut v = json!({
            "written_by": WRITTEN_BY,
            "version": crate::VERSION,
            "kind": self.kind,
            "complete": self.complete,
        });
        if let Some(r) = &self.stop_reason {
            v["stop_reason"] = json!(r);
        }
        v.to_string() + "\n"
    }
}

/// The parsed marker of folder `dir`, when it has one written by lnsim.
pub fn read_marker(dir: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join(MARKER_FILE)).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    (v.get("written_by").and_then(Value::as_str) == Some(WRITTEN_BY)).then_some(v)
}

/// True when `dir` carries an lnsim marker.
pub fn is_marked(dir: &Path) -> bool {
    read_marker(dir).is_some()
}

/// Files of a results folder written by lnsim before folders carried a marker (besides any
/// `*.png` figure).
const LEGACY_RESULTS_FILES: &[&str] = &[
    "summary.json",
    "nodes.csv",
    "flows.csv",
    "latency_hist.csv",
    "buffers.csv",
    "ccti.csv",
    "cc_ports.csv",
    "routers.csv",
    "bins.csv",
    "scenario.toml",
    "report.html",
];

/// True for a results folder written by an lnsim without markers: it holds an lnsim
/// `summary.json` (with `scenario` and `version`) and nothing but the files lnsim writes into a
/// results folder (and `*.png` figures), so replacing it loses no user file.
pub fn is_legacy_results(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for e in entries {
        let Ok(e) = e else { return false };
        let name = e.file_name();
        let Some(name) = name.to_str() else {
            return false;
        };
        let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
        if !is_file || !(LEGACY_RESULTS_FILES.contains(&name) || name.ends_with(".png")) {
            return false;
        }
    }
    std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| v.get("scenario").is_some() && v.get("version").is_some())
}

/// What to do instead of writing into an existing folder of someone else's files.
const ADVICE_FOLDER: &str = "choose another --out (an absent or empty folder, or a results \
                             folder lnsim wrote), or remove the folder yourself";

/// What to do instead of any other refused path.
const ADVICE: &str = "choose another --out (an absent or empty folder, or a results folder \
                      lnsim wrote)";

fn refuse(out: &Path, why: impl std::fmt::Display) -> Error {
    Error::Input(format!("results folder {}: {why}; {ADVICE}", out.display()))
}

fn refuse_folder(out: &Path, why: impl std::fmt::Display) -> Error {
    Error::Input(format!(
        "results folder {}: {why}; {ADVICE_FOLDER}",
        out.display()
    ))
}

/// The absolute form of `p` (relative to the current folder), without touching the disk.
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// `p` with symbolic links resolved when it exists, else its absolute form.
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p))
}

/// A path a results folder must never hold, with its description for messages (e.g.
/// `(scenario folder, "the scenario's folder")`).
pub type Protected<'a> = (&'a Path, &'a str);

/// The folders a results folder must never hold: the current folder and `protect`, resolved.
fn guarded(protect: &[Protected]) -> Vec<(PathBuf, String)> {
    let mut g = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        g.push((canonical(&cwd), "the current folder".to_string()));
    }
    for (p, what) in protect {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        g.push((canonical(p), format!("{what} ({})", p.display())));
    }
    g
}

/// Checks that `dir` (an existing folder) accepts a new entry, by creating and removing an
/// empty hidden folder in it (an honest test also for root and read-only file systems).
fn check_writable(dir: &Path, out: &Path) -> Result<()> {
    for n in 0..1000u32 {
        let probe = dir.join(format!(".lnsim-probe-{}-{n}", std::process::id()));
        match std::fs::create_dir(&probe) {
            Ok(()) => {
                let _ = std::fs::remove_dir(&probe);
                return Ok(());
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(refuse(
                    out,
                    format!("cannot write into {}: {}", dir.display(), os_reason(&e)),
                ))
            }
        }
    }
    Err(refuse(
        out,
        format!("cannot create a temporary folder in {}", dir.display()),
    ))
}

/// An I/O error as a short reason (the OS message without the "(os error N)" suffix).
fn os_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Checks that lnsim may write the results folder `out` (absent, empty, or marked by lnsim;
/// not a file, not under a file, writable; holding neither the current folder nor any of
/// `protect`). Returns the path to write: `out` itself, or the folder a symbolic link `out`
/// points to. Creates nothing.
pub fn check_out_dir(out: &Path, protect: &[Protected]) -> Result<PathBuf> {
    if out.as_os_str().is_empty() {
        return Err(refuse(out, "empty path"));
    }
    let target = match std::fs::symlink_metadata(out) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::metadata(out) {
            Ok(t) if t.is_dir() => canonical(out),
            Ok(_) => return Err(refuse(out, "is a symbolic link to a file, not a folder")),
            Err(e) => {
                return Err(refuse(
                    out,
                    format!("is a broken symbolic link ({})", os_reason(&e)),
                ))
            }
        },
        Ok(m) if m.is_dir() => out.to_path_buf(),
        Ok(_) => return Err(refuse(out, "is a file, not a folder")),
        Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {
            // absent: the nearest existing ancestor must be a folder we can write into
            if out.file_name().is_none() {
                return Err(refuse(out, "does not end in a folder name"));
            }
            let abs = absolute(out);
            for anc in abs.ancestors().skip(1) {
                match std::fs::metadata(anc) {
                    Ok(m) if m.is_dir() => {
                        check_writable(anc, out)?;
                        return Ok(out.to_path_buf());
                    }
                    Ok(_) => {
                        return Err(refuse(
                            out,
                            format!(
                                "lies under {}, which is a file, not a folder",
                                anc.display()
                            ),
                        ))
                    }
                    Err(e)
                        if e.kind() == ErrorKind::NotFound
                            || e.kind() == ErrorKind::NotADirectory =>
                    {
                        continue
                    }
                    Err(e) => {
                        return Err(refuse(
                            out,
                            format!("cannot access {}: {}", anc.display(), os_reason(&e)),
                        ))
                    }
                }
            }
            return Err(refuse(out, "no existing folder above it"));
        }
        Err(e) => return Err(refuse(out, format!("cannot access it: {}", os_reason(&e)))),
    };
    // an existing folder
    let real = canonical(&target);
    for (g, what) in guarded(protect) {
        if g.starts_with(&real) {
            let rel = if g == real {
                format!("is {what}")
            } else {
                format!("holds {what}")
            };
            return Err(refuse(
                out,
                format!("{rel}; lnsim replaces a results folder whole"),
            ));
        }
    }
    let empty = match std::fs::read_dir(&target) {
        Ok(mut it) => it.next().is_none(),
        Err(e) => {
            return Err(refuse(
                out,
                format!("cannot read the folder: {}", os_reason(&e)),
            ))
        }
    };
    if !empty && !is_marked(&target) && !is_legacy_results(&target) {
        return Err(refuse_folder(
            out,
            format!(
                "the folder exists and holds files that lnsim did not write (it has no \
                 {MARKER_FILE} marker); lnsim replaces only folders it wrote itself"
            ),
        ));
    }
    let parent = real.parent().unwrap_or(Path::new("/"));
    check_writable(parent, out)?;
    Ok(target)
}

/// A hidden sibling of `leaf` in `parent` that did not exist, created empty
/// (`.LEAF.TAG-PID-N`).
fn fresh_sibling(parent: &Path, leaf: &str, tag: &str, out: &Path) -> Result<PathBuf> {
    for n in 0..10_000u32 {
        let p = parent.join(format!(".{leaf}.{tag}-{}-{n}", std::process::id()));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(refuse(
                    out,
                    format!("cannot write into {}: {}", parent.display(), os_reason(&e)),
                ))
            }
        }
    }
    Err(refuse(
        out,
        format!("cannot create a temporary folder in {}", parent.display()),
    ))
}

/// A hidden sibling name of `leaf` in `parent` that does not exist (`.LEAF.TAG-PID-N`).
fn unused_sibling(parent: &Path, leaf: &str, tag: &str) -> PathBuf {
    let mut n = 0u32;
    loop {
        let p = parent.join(format!(".{leaf}.{tag}-{}-{n}", std::process::id()));
        if std::fs::symlink_metadata(&p).is_err() {
            return p;
        }
        n += 1;
    }
}

fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// Writes `files` (name, contents) and the [`MARKER_FILE`] `marker` as the folder `out`,
/// atomically (see the module documentation), after the checks of [`check_out_dir`] (with
/// `protect`). An existing `out` is replaced only when it is empty or lnsim wrote it. Returns
/// the folder written (`out`, or the folder a symbolic link `out` points to). On failure
/// nothing is left behind: no temporary folder, and `out` as it was.
pub fn write_folder(
    out: &Path,
    files: &[(&str, &str)],
    marker: &Marker,
    protect: &[Protected],
) -> Result<PathBuf> {
    let target = check_out_dir(out, protect)?;
    let parent = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&parent).map_err(|e| {
        refuse(
            out,
            format!("cannot create {}: {}", parent.display(), os_reason(&e)),
        )
    })?;
    let leaf = target
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("results")
        .to_string();
    let tmp = fresh_sibling(&parent, &leaf, "tmp", out)?;
    let filled = write_file(&tmp.join(MARKER_FILE), &marker.to_json()).and_then(|()| {
        files
            .iter()
            .try_for_each(|(name, text)| write_file(&tmp.join(name), text))
    });
    if let Err(e) = filled {
        let _ = std::fs::remove_dir_all(&tmp); // our own temporary folder
        return Err(refuse(
            out,
            format!("cannot write into {}: {}", parent.display(), os_reason(&e)),
        ));
    }
    sync_dir(&tmp);
    // swap: the old folder (empty or lnsim's) steps aside under a hidden name, the new one
    // takes its place, then the old one goes
    let old = if std::fs::symlink_metadata(&target).is_ok() {
        let old = unused_sibling(&parent, &leaf, "old");
        if let Err(e) = std::fs::rename(&target, &old) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(refuse(
                out,
                format!("cannot move the old folder aside: {}", os_reason(&e)),
            ));
        }
        Some(old)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(&tmp, &target) {
        if let Some(old) = &old {
            let _ = std::fs::rename(old, &target);
        }
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(refuse(
            out,
            format!("cannot move the new folder into place: {}", os_reason(&e)),
        ));
    }
    sync_dir(&parent);
    if let Some(old) = old {
        let _ = std::fs::remove_dir_all(&old); // was empty or marked as lnsim's
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<(&'static str, &'static str)> {
        vec![("summary.json", "{}\n"), ("a.csv", "x\n1\n")]
    }

    fn write(out: &Path) -> Result<PathBuf> {
        write_folder(out, &files(), &Marker::results(true, None), &[])
    }

    fn hidden_siblings(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect()
    }

    #[test]
    fn writes_an_absent_folder_with_its_marker() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("a/b/run");
        write(&out).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("a.csv")).unwrap(),
            "x\n1\n"
        );
        let m = read_marker(&out).expect("marker");
        assert_eq!(m["kind"], "results");
        assert_eq!(m["complete"], true);
        assert!(m.get("stop_reason").is_none());
        assert!(hidden_siblings(&d.path().join("a/b")).is_empty());
    }

    #[test]
    fn replaces_an_empty_or_marked_folder() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("run");
        std::fs::create_dir(&out).unwrap();
        write(&out).unwrap();
        std::fs::write(out.join("old.csv"), "stale").unwrap();
        write(&out).unwrap();
        assert!(
            !out.join("old.csv").exists(),
            "the old folder is replaced whole"
        );
        assert!(out.join("summary.json").is_file());
        assert!(hidden_siblings(d.path()).is_empty(), "no temporary left");
    }

    #[test]
    fn refuses_a_folder_of_user_files_and_keeps_them() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("mine");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("thesis.tex"), "precious").unwrap();
        let e = write(&out).unwrap_err();
        assert!(matches!(e, Error::Input(_)));
        let msg = e.to_string();
        assert!(
            msg.contains("did not write") && msg.contains("choose another --out"),
            "{msg}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("thesis.tex")).unwrap(),
            "precious"
        );
        assert!(hidden_siblings(d.path()).is_empty());
        // a marker that is not lnsim's does not count
        std::fs::write(out.join(MARKER_FILE), "not json").unwrap();
        assert!(write(&out).is_err());
        assert!(out.join("thesis.tex").is_file());
    }

    #[test]
    fn replaces_a_results_folder_of_an_lnsim_without_markers_only() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("old");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(
            out.join("summary.json"),
            r#"{"scenario": "x", "version": "0.1.0"}"#,
        )
        .unwrap();
        std::fs::write(out.join("nodes.csv"), "t\n").unwrap();
        std::fs::write(out.join("bandwidth.png"), "png").unwrap();
        assert!(is_legacy_results(&out));
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        assert!(!is_legacy_results(&out));
        assert!(write(&out).is_err());
        std::fs::remove_file(out.join("notes.txt")).unwrap();
        write(&out).unwrap();
        assert!(is_marked(&out) && !out.join("bandwidth.png").exists());
    }

    #[test]
    fn refuses_a_file_and_a_path_under_a_file() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("notes.txt");
        std::fs::write(&f, "keep").unwrap();
        let e = write(&f).unwrap_err().to_string();
        assert!(e.contains("is a file"), "{e}");
        let e = write(&f.join("sub/run")).unwrap_err().to_string();
        assert!(e.contains("which is a file"), "{e}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "keep");
        assert_eq!(hidden_siblings(d.path()), Vec::<String>::new());
        let e = write(&d.path().join("nope/..")).unwrap_err().to_string();
        assert!(e.contains("folder name"), "{e}");
    }

    #[test]
    fn refuses_a_folder_holding_a_protected_one_even_when_marked() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("run");
        write(&out).unwrap();
        let inner = out.join("scen");
        std::fs::create_dir(&inner).unwrap();
        let e = write_folder(
            &out,
            &files(),
            &Marker::results(true, None),
            &[(&inner, "the scenario's folder")],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("holds"), "{e}");
        assert!(inner.is_dir());
        let e = write_folder(
            &out,
            &files(),
            &Marker::results(true, None),
            &[(&out, "the scenario's folder")],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(" is "), "{e}");
    }

    #[test]
    fn refuses_an_unwritable_place() {
        // /proc accepts no new folder, even for root
        if !Path::new("/proc/self").is_dir() {
            eprintln!("skipped: no /proc on this system");
            return;
        }
        let e = write(Path::new("/proc/lnsim-test-out")).unwrap_err();
        assert!(matches!(e, Error::Input(_)));
        assert!(e.to_string().contains("cannot write"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_a_symbolic_link_to_a_marked_folder() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        write(&real).unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        std::fs::write(real.join("old.csv"), "stale").unwrap();
        write(&link).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(real.join("summary.json").is_file() && !real.join("old.csv").exists());
    }

    #[test]
    fn incomplete_marker_says_so() {
        let m = Marker::results(false, Some("interrupted")).to_json();
        let v: Value = serde_json::from_str(&m).unwrap();
        assert_eq!(v["complete"], false);
        assert_eq!(v["stop_reason"], "interrupted");
        assert_eq!(v["written_by"], "lnsim");
    }
}
