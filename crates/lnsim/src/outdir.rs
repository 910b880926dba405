//! Output folders that lnsim writes, and the rules that keep a user's files safe.
//!
//! Every folder lnsim writes carries a small marker file, [`MARKER_FILE`] (`.lnsim`), holding
//! JSON such as `{"written_by": "lnsim", "version": "0.1.0", "kind": "results", "complete":
//! true, "files": ["flows.csv", "nodes.csv", ...]}`. `kind` says what the folder holds
//! ([`KIND_RESULTS`]: one run; [`KIND_SWEEP`], [`KIND_FIGURES`], [`KIND_BENCH`]: written by the
//! Python layer) and decides what may replace it; `files` lists, exactly, the entries lnsim
//! wrote into the folder (the core's files; `lnsim plot` and `lnsim report` add theirs when
//! they write into it). A folder of an lnsim that listed no files (or wrote no marker: see
//! [`legacy_kind`]) is judged by the names lnsim writes into a folder of its kind instead.
//!
//! A run's results folder `out` ([`check_out_dir`], [`write_folder`]) is replaced whole, and
//! only when it is absent, empty, or a results folder holding nothing but what lnsim wrote
//! ([`replace_problem`]): a folder of another kind (a sweep, figures, a bench), a results
//! folder holding entries lnsim did not write (they are named, up to [`MAX_NAMED`]), a folder
//! inside an lnsim sweep folder (its run folders are the sweep's), any other existing folder, a
//! file, a path under a file or a place that cannot be written is refused with an input error
//! (exit status 2) saying what to do, before anything is simulated and with nothing touched. A
//! folder that holds the current folder or the scenario's folder is never replaced, marker or
//! not.
//!
//! [`write_folder`] writes the new folder as a hidden sibling (`.NAME.tmp-PID-N`), then swaps it
//! in with two renames: the old folder is first renamed to a hidden sibling (`.NAME.old-PID-N`),
//! checked again there (a file the user added meanwhile puts it back and refuses), and removed
//! only once the new one is in place. A crash at any point leaves either the old folder, or the
//! new complete one, or hidden siblings only: never a folder under the target name that looks
//! complete but is not, and never a user's file deleted ([`swap_in`], which also puts a sweep's
//! run folders in place).
//!
//! The same rules serve the commands of the Python layer (`python/lnsim/_outdir.py` calls them
//! through the binding): a sweep, bench or figures folder is updated in place, only when it is
//! absent, empty or of its own kind ([`check_folder`], [`prepare_folder`]), keeping the entries
//! lnsim did not write; a file lnsim writes there is absent or its own ([`claim_file`]), recorded
//! in the marker, and written atomically ([`write_atomic`]: never through a symbolic link); the
//! run folders a sweep or a bench replaces follow the results-folder rule
//! ([`run_folder_problem`]); `lnsim report --out` overwrites only an lnsim report
//! ([`check_report_file`]).

use crate::error::{Error, Result};
use serde_json::{json, Value};
use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};

/// Name of the marker file inside every folder lnsim writes.
pub const MARKER_FILE: &str = ".lnsim";

/// `written_by` value of a marker.
const WRITTEN_BY: &str = "lnsim";

/// Marker kind of one run's results folder (written by the core).
pub const KIND_RESULTS: &str = "results";
/// Marker kind of a sweep folder (`lnsim sweep`).
pub const KIND_SWEEP: &str = "sweep";
/// Marker kind of a folder of figures (`lnsim plot --out`).
pub const KIND_FIGURES: &str = "figures";
/// Marker kind of a bench folder (`lnsim bench`).
pub const KIND_BENCH: &str = "bench";
/// Marker kind of a folder of exported fabrics (`lnsim export`: `ibnetdiscover` and LFT-dump
/// files).
pub const KIND_FABRIC: &str = "fabric";

/// The content of a folder's marker file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// What the folder holds: `"results"` for one run.
    pub kind: String,
    /// False for a run that stopped before its end (e.g. interrupted): partial results.
    pub complete: bool,
    /// Why an incomplete run stopped (`"interrupted"`); `None` for a complete one.
    pub stop_reason: Option<String>,
    /// The entries lnsim wrote into the folder, besides the marker ([`write_folder`] fills it
    /// with the names of the files it writes).
    pub files: Vec<String>,
}

impl Marker {
    /// The marker of one run's results folder.
    pub fn results(complete: bool, stop_reason: Option<&str>) -> Self {
        Marker {
            kind: KIND_RESULTS.into(),
            complete,
            stop_reason: stop_reason.map(str::to_string),
            files: Vec::new(),
        }
    }

    /// The marker file's text (one JSON object and a newline; `files` sorted).
    pub fn to_json(&self) -> String {
        let mut files = self.files.clone();
        files.sort();
        files.dedup();
        let mut v = json!({
            "written_by": WRITTEN_BY,
            "version": crate::VERSION,
            "kind": self.kind,
            "complete": self.complete,
            "files": files,
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

/// What a folder of `kind` holds, as refusals say it ("holds an lnsim sweep (points/, ...)").
pub fn kind_description(kind: &str) -> String {
    match kind {
        KIND_RESULTS => "the results of one lnsim run (summary.json and its tables)".into(),
        KIND_SWEEP => "an lnsim sweep (points/, sweep.csv, store.sqlite)".into(),
        KIND_FIGURES => "lnsim figures (the PNGs of lnsim plot --out)".into(),
        KIND_BENCH => "an lnsim bench (bench.json and a results folder per case)".into(),
        KIND_FABRIC => {
            "exported fabrics (the .ibnetdiscover and .lfts files of lnsim export)".into()
        }
        other => format!("lnsim output of kind \"{other}\" (written by another lnsim version)"),
    }
}

/// Every file the core writes into a results folder (whichever model and options), with
/// `report.html` (`lnsim report`): what a results folder of an lnsim whose marker lists no
/// files may hold besides `*.png` figures.
const RESULTS_FILES: &[&str] = &[
    "summary.json",
    "nodes.csv",
    "flows.csv",
    "latency_hist.csv",
    "buffers.csv",
    "output_buffers.csv",
    "links.csv",
    "routes.csv",
    "ccti.csv",
    "cc_ports.csv",
    "ddbbm.csv",
    "monitor_ports.csv",
    "drb_paths.csv",
    "ird.csv",
    "routers.csv",
    "bins.csv",
    "acor_levels.csv",
    "group_counters.csv",
    "pfc.csv",
    "scenario.toml",
    "report.html",
];

/// The entries of a sweep folder that are lnsim's whatever its marker lists: the run folders,
/// the results store (with SQLite's companion files), the tables, the staging folder and the
/// lock (`python/lnsim/_sweep.py`, `store.py`, `_outdir.py`).
const SWEEP_ENTRIES: &[&str] = &[
    "points",
    "store.sqlite",
    "store.sqlite-wal",
    "store.sqlite-shm",
    "store.sqlite-journal",
    "sweep.csv",
    "sweep.json",
    ".staging",
    ".lnsim-lock",
];

/// The entries of a bench folder that are lnsim's whatever its marker lists.
const BENCH_ENTRIES: &[&str] = &["bench.json"];

/// Entries of a folder of `kind` that are lnsim's whatever its marker lists.
fn standing_entries(kind: &str) -> &'static [&'static str] {
    match kind {
        KIND_SWEEP => SWEEP_ENTRIES,
        KIND_BENCH => BENCH_ENTRIES,
        _ => &[],
    }
}

/// Entries lnsim writes into a folder of `kind` besides the standing ones and `*.png`: how a
/// folder whose marker lists no files is judged.
fn unlisted_entries(kind: &str) -> &'static [&'static str] {
    match kind {
        KIND_RESULTS => RESULTS_FILES,
        KIND_SWEEP => &["report.html"],
        _ => &[],
    }
}

/// The entries of `dir` (name, is a folder: a symbolic link is not), sorted by name; `None`
/// when it cannot be read.
fn entries(dir: &Path) -> Option<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).ok()? {
        let e = e.ok()?;
        let name = e.file_name().to_string_lossy().into_owned();
        let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
        out.push((name, is_dir));
    }
    out.sort();
    Some(out)
}

/// True when the file `path` holds a JSON object with all of `keys`.
fn json_with(path: &Path, keys: &[&str]) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| keys.iter().all(|k| v.get(k).is_some()))
}

fn is_results_summary(dir: &Path) -> bool {
    json_with(&dir.join("summary.json"), &["scenario", "version"])
}

/// True for a `bench.json` written by `lnsim bench`.
fn is_bench_record(path: &Path) -> bool {
    json_with(path, &["version", "quick", "cases"])
}

/// The kind of a folder written by an lnsim that wrote no markers, judged by what it holds:
/// `"results"` (an lnsim `summary.json` and nothing but files lnsim writes into a results
/// folder, `*.png` figures included), `"sweep"` (a results store or `sweep.csv` and nothing but
/// what lnsim writes into a sweep folder) or `"bench"` (an lnsim `bench.json` and results
/// folders lnsim wrote);
/// `None` for anything else, which lnsim never replaces.
pub fn legacy_kind(dir: &Path) -> Option<&'static str> {
    if is_marked(dir) {
        return None;
    }
    let list = entries(dir)?;
    let has = |n: &str| list.iter().any(|(name, _)| name == n);
    let png = |n: &str| n.ends_with(".png");
    if has("summary.json")
        && list
            .iter()
            .all(|(n, d)| !d && (RESULTS_FILES.contains(&n.as_str()) || png(n)))
        && is_results_summary(dir)
    {
        return Some(KIND_RESULTS);
    }
    if (has("store.sqlite") || has("sweep.csv"))
        && list
            .iter()
            .all(|(n, _)| SWEEP_ENTRIES.contains(&n.as_str()) || n == "report.html" || png(n))
    {
        return Some(KIND_SWEEP);
    }
    if has("bench.json")
        && is_bench_record(&dir.join("bench.json"))
        && list.iter().all(|(n, d)| {
            n == "bench.json"
                || (*d && read_marker(&dir.join(n)).is_some_and(|m| m["kind"] == KIND_RESULTS))
        })
    {
        return Some(KIND_BENCH);
    }
    None
}

/// The kind of folder `dir`: its marker's, else its [`legacy_kind`]; `None` for a folder
/// lnsim did not write.
pub fn folder_kind(dir: &Path) -> Option<String> {
    match read_marker(dir) {
        Some(m) => Some(m["kind"].as_str().unwrap_or("").to_string()),
        None => legacy_kind(dir).map(str::to_string),
    }
}

/// The entries of folder `dir` that lnsim did not write (a folder's name ends in `/`), sorted:
/// those its marker does not list (nor the standing entries of its kind, e.g. a sweep's
/// `points/`); for a folder whose marker lists no files, or that has no marker but is an lnsim
/// folder of an earlier version ([`legacy_kind`]), those that are not names lnsim writes into a
/// folder of its kind nor `*.png` figures. lnsim writes only files into a results or figures
/// folder, so a folder there is never lnsim's. `None` for a folder lnsim did not write at all.
pub fn foreign_entries(dir: &Path) -> Option<Vec<String>> {
    let marker = read_marker(dir);
    let kind = match &marker {
        Some(m) => m["kind"].as_str().unwrap_or("").to_string(),
        None => legacy_kind(dir)?.to_string(),
    };
    let listed: Option<Vec<&str>> = marker
        .as_ref()
        .and_then(|m| m.get("files"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect());
    let files_only = kind == KIND_RESULTS || kind == KIND_FIGURES || kind == KIND_FABRIC;
    let mut foreign = Vec::new();
    for (name, is_dir) in entries(dir)? {
        if name == MARKER_FILE || standing_entries(&kind).contains(&name.as_str()) {
            continue;
        }
        let named = match &listed {
            Some(list) => list.contains(&name.as_str()),
            None => unlisted_entries(&kind).contains(&name.as_str()) || name.ends_with(".png"),
        };
        if !named || (is_dir && files_only) {
            foreign.push(if is_dir { format!("{name}/") } else { name });
        }
    }
    Some(foreign)
}

/// Most entries a refusal names; the rest are counted ("and 4 more").
pub const MAX_NAMED: usize = 5;

/// `names` for a message: the first [`MAX_NAMED`], then "and N more".
pub fn name_list(names: &[String]) -> String {
    let shown = names
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_NAMED {
        format!("{shown} and {} more", names.len() - MAX_NAMED)
    } else {
        shown
    }
}

/// Why the existing folder `dir` may not be replaced by a run's results folder, with what to do
/// instead (`None` when it may: it is empty, or a results folder holding nothing but what lnsim
/// wrote — see [`foreign_entries`]). A folder of another kind, a results folder holding entries
/// lnsim did not write (named) and a folder lnsim did not write are refused.
pub fn replace_problem(dir: &Path) -> Option<String> {
    let list = match entries(dir) {
        Some(l) => l,
        None => {
            return Some(format!(
                "cannot read the folder; {ADVICE}{}",
                std::fs::read_dir(dir)
                    .err()
                    .map(|e| format!(" ({})", os_reason(&e)))
                    .unwrap_or_default()
            ))
        }
    };
    if list.is_empty() {
        return None;
    }
    match folder_kind(dir) {
        None => Some(format!(
            "the folder exists and holds files that lnsim did not write (it has no \
             {MARKER_FILE} marker); lnsim replaces only folders it wrote itself; {ADVICE_FOLDER}"
        )),
        Some(kind) if kind != KIND_RESULTS => Some(format!(
            "holds {}; a run replaces only the results folder of a run; {ADVICE}",
            kind_description(&kind)
        )),
        Some(_) => {
            let foreign = foreign_entries(dir).unwrap_or_default();
            if foreign.is_empty() {
                return None;
            }
            let what = if foreign.len() == 1 {
                "an entry"
            } else {
                "entries"
            };
            Some(format!(
                "holds {what} that lnsim did not write: {}; lnsim replaces a results folder \
                 whole, so move them out of the folder, or choose another --out",
                name_list(&foreign)
            ))
        }
    }
}

/// What to do instead of writing into an existing folder of someone else's files.
const ADVICE_FOLDER: &str = "choose another --out (an absent or empty folder, or a results \
                             folder lnsim wrote), or remove the folder yourself";

/// What to do instead of any other refused path.
const ADVICE: &str = "choose another --out (an absent or empty folder, or a results folder \
                      lnsim wrote)";

fn refuse(out: &Path, why: impl std::fmt::Display) -> Error {
    Place::results(out).refuse(why)
}

/// A path lnsim is asked to write, as its refusals name it: `WHAT PATH: WHY; ADVICE`
/// ("sweep folder out: is a file, not a folder; choose another --out ...").
#[derive(Clone, Copy)]
struct Place<'a> {
    /// The path as the user gave it.
    path: &'a Path,
    /// What it is to be ("results folder", "sweep folder", "figure", "report file").
    what: &'a str,
    /// What to do instead, ending every refusal.
    advice: &'a str,
}

impl<'a> Place<'a> {
    /// A run's results folder `out`.
    fn results(out: &'a Path) -> Self {
        Place {
            path: out,
            what: "results folder",
            advice: ADVICE,
        }
    }

    /// The same place with another piece of advice.
    fn advising(self, advice: &'a str) -> Self {
        Place { advice, ..self }
    }

    /// The refusal of this place for reason `why`.
    fn refuse(&self, why: impl std::fmt::Display) -> Error {
        Error::Input(format!(
            "{} {}: {why}; {}",
            self.what,
            self.path.display(),
            self.advice
        ))
    }
}

/// A refusal whose reason already says what to do (see [`replace_problem`]).
fn refuse_as_said(out: &Path, why_and_advice: &str) -> Error {
    Error::Input(format!(
        "results folder {}: {why_and_advice}",
        out.display()
    ))
}

/// The nearest folder above `out` that is an lnsim sweep folder (by its marker), if any: the
/// run folders in it are the sweep's (its results store records them), so a run never writes
/// there.
pub fn enclosing_sweep(out: &Path) -> Option<PathBuf> {
    absolute(out)
        .ancestors()
        .skip(1)
        .find(|a| read_marker(a).is_some_and(|m| m["kind"] == KIND_SWEEP))
        .map(Path::to_path_buf)
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

/// The folders an output folder must never hold: the current folder and `protect`, resolved
/// (with its description and, for a `protect` path, the path as given).
fn guarded(protect: &[Protected]) -> Vec<(PathBuf, String, Option<PathBuf>)> {
    let mut g = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        g.push((canonical(&cwd), "the current folder".to_string(), None));
    }
    for (p, what) in protect {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        g.push((canonical(p), what.to_string(), Some(p.to_path_buf())));
    }
    g
}

/// The first guarded folder ([`guarded`]) that the folder `real` (resolved) is or holds:
/// (`"is"` or `"holds"`, its description, the guarded folder resolved, as given).
fn guard_hit(
    real: &Path,
    protect: &[Protected],
) -> Option<(&'static str, String, PathBuf, Option<PathBuf>)> {
    guarded(protect)
        .into_iter()
        .find(|(g, _, _)| g.starts_with(real))
        .map(|(g, what, given)| (if g == real { "is" } else { "holds" }, what, g, given))
}

/// Checks that `dir` (an existing folder) accepts a new entry, by creating and removing an
/// empty hidden folder in it (an honest test also for root and read-only file systems).
fn check_writable(dir: &Path, place: &Place) -> Result<()> {
    for n in 0..1000u32 {
        let probe = dir.join(format!(".lnsim-probe-{}-{n}", std::process::id()));
        match std::fs::create_dir(&probe) {
            Ok(()) => {
                let _ = std::fs::remove_dir(&probe);
                return Ok(());
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(place.refuse(format!(
                    "cannot write into {}: {}",
                    dir.display(),
                    os_reason(&e)
                )))
            }
        }
    }
    Err(place.refuse(format!(
        "cannot create a temporary folder in {}",
        dir.display()
    )))
}

/// True for the errors that say a path is absent (or lies under a file).
fn is_absent(e: &std::io::Error) -> bool {
    e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory
}

/// The nearest existing folder above the absent path `place.path`; refused when that nearest
/// existing ancestor is a file, cannot be accessed, or there is none.
fn nearest_existing_folder(place: &Place) -> Result<PathBuf> {
    for anc in absolute(place.path).ancestors().skip(1) {
        match std::fs::metadata(anc) {
            Ok(m) if m.is_dir() => return Ok(anc.to_path_buf()),
            Ok(_) => {
                return Err(place.refuse(format!(
                    "lies under {}, which is a file, not a folder",
                    anc.display()
                )))
            }
            Err(e) if is_absent(&e) => continue,
            Err(e) => {
                return Err(place.refuse(format!(
                    "cannot access {}: {}",
                    anc.display(),
                    os_reason(&e)
                )))
            }
        }
    }
    Err(place.refuse("no existing folder above it"))
}

/// An I/O error as a short reason (the OS message without the "(os error N)" suffix).
fn os_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Checks that lnsim may write the results folder `out`: absent, empty, or a results folder
/// holding nothing but what lnsim wrote ([`replace_problem`]); not inside an lnsim sweep
/// folder ([`enclosing_sweep`]), not a file, not under a file, writable; holding neither the
/// current folder nor any of `protect`. Returns the path to write: `out` itself, or the folder a symbolic link `out`
/// points to. Creates nothing.
pub fn check_out_dir(out: &Path, protect: &[Protected]) -> Result<PathBuf> {
    if out.as_os_str().is_empty() {
        return Err(refuse(out, "empty path"));
    }
    if let Some(sweep) = enclosing_sweep(out) {
        return Err(refuse(
            out,
            format!(
                "lies inside the lnsim sweep folder {}, whose run folders only lnsim sweep \
                 writes",
                sweep.display()
            ),
        ));
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
        Err(e) if is_absent(&e) => {
            // absent: the nearest existing ancestor must be a folder we can write into
            if out.file_name().is_none() {
                return Err(refuse(out, "does not end in a folder name"));
            }
            let place = Place::results(out);
            check_writable(&nearest_existing_folder(&place)?, &place)?;
            return Ok(out.to_path_buf());
        }
        Err(e) => return Err(refuse(out, format!("cannot access it: {}", os_reason(&e)))),
    };
    // an existing folder
    let real = canonical(&target);
    if let Some((rel, what, _, given)) = guard_hit(&real, protect) {
        let given = given
            .map(|p| format!(" ({})", p.display()))
            .unwrap_or_default();
        return Err(refuse(
            out,
            format!("{rel} {what}{given}; lnsim replaces a results folder whole"),
        ));
    }
    if let Some(problem) = replace_problem(&target) {
        return Err(refuse_as_said(out, &problem));
    }
    let parent = real.parent().unwrap_or(Path::new("/"));
    check_writable(parent, &Place::results(out))?;
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

/// Writes `files` (name, contents) and the [`MARKER_FILE`] `marker` (listing the names of
/// `files`) as the folder `out`, atomically (see the module documentation), after the checks of
/// [`check_out_dir`] (with `protect`). An existing `out` is replaced only when it is empty or a
/// results folder holding nothing but what lnsim wrote. Returns
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
    let marker = Marker {
        files: files.iter().map(|(name, _)| name.to_string()).collect(),
        ..marker.clone()
    };
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
    let aside = unused_sibling(&parent, &leaf, "old");
    swap_in(&tmp, &target, &aside, replace_problem).map_err(|e| {
        let _ = std::fs::remove_dir_all(&tmp); // our own temporary folder
        match e {
            SwapError::Refused(problem) => refuse_as_said(out, &problem),
            SwapError::Io(step, e) => refuse(out, format!("{step}: {}", os_reason(&e))),
        }
    })?;
    Ok(target)
}

/// Why [`swap_in`] did not put a new folder in place; the old folder is back where it was.
#[derive(Debug)]
pub enum SwapError {
    /// The old folder, checked again once aside, may not be replaced: why, and what to do.
    Refused(String),
    /// A rename failed: the step ("cannot move the old folder aside") and the error.
    Io(&'static str, std::io::Error),
}

/// Puts the complete new folder `new` in place as `target` with renames, replacing an existing
/// `target` only when lnsim may: the old folder first steps aside as `aside` (a hidden name on
/// the same file system), where it is checked again with `problem` (a file the user added since
/// the first check puts it back and refuses), then the new folder takes its place and the old
/// one goes. A crash at any point leaves the old folder, or the new one, and hidden names only.
/// How a results folder ([`write_folder`]) and a sweep's run folder (`python/lnsim/store.py`)
/// are replaced whole; the caller removes `new` on failure.
pub fn swap_in(
    new: &Path,
    target: &Path,
    aside: &Path,
    problem: impl Fn(&Path) -> Option<String>,
) -> std::result::Result<(), SwapError> {
    let had_old = std::fs::symlink_metadata(target).is_ok();
    if had_old {
        std::fs::rename(target, aside)
            .map_err(|e| SwapError::Io("cannot move the old folder aside", e))?;
        if let Some(why) = problem(aside) {
            let _ = std::fs::rename(aside, target);
            return Err(SwapError::Refused(why));
        }
    }
    if let Err(e) = std::fs::rename(new, target) {
        if had_old {
            let _ = std::fs::rename(aside, target);
        }
        return Err(SwapError::Io("cannot move the new folder into place", e));
    }
    sync_dir(folder_of(target));
    if had_old {
        let _ = std::fs::remove_dir_all(aside); // empty, or nothing but what lnsim wrote
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Folders updated in place (sweep, bench, figures), the files lnsim writes into them, the run
// folders a sweep or a bench replaces, and `lnsim report --out`: the rules of the Python layer's
// commands (`python/lnsim/_outdir.py` calls these through the binding).
// ---------------------------------------------------------------------------------------------

/// What to do instead of writing a refused folder that lnsim updates in place (a sweep, bench or
/// figures folder), or a refused run folder of one.
pub const ADVICE_IN_PLACE: &str =
    "choose another --out (an absent or empty folder, or one lnsim wrote)";

/// ... and of an existing folder of someone else's files.
const ADVICE_IN_PLACE_FOLDER: &str =
    "choose another --out (an absent or empty folder, or one lnsim wrote), or remove the folder \
     yourself";

/// What to do instead of writing over a file (or a folder) where lnsim writes a file.
const ADVICE_FILE: &str = "move it away, or choose another --out";

/// The tag that identifies an HTML report written by `lnsim report`.
pub const REPORT_GENERATOR: &str = r#"<meta name="generator" content="lnsim report">"#;

/// True when `p` is a symbolic link (never followed by lnsim's writes).
fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// True when the folder `dir` holds no entry (an error reading it is returned).
fn is_empty_folder(dir: &Path) -> std::io::Result<bool> {
    Ok(std::fs::read_dir(dir)?.next().is_none())
}

/// Checks that lnsim may write into the folder `path` (a sweep, bench or figures folder, which
/// it updates in place; `what` names it in refusals): absent, empty, an lnsim folder
/// ([`folder_kind`]; of a kind among `kinds` when given) or one of `allow` (folders lnsim wrote
/// that may predate markers, e.g. the results folder being plotted); not a file, not under a
/// file, writable; holding neither the current folder nor any of `protect`. Returns whether it
/// exists; creates nothing.
pub fn check_folder(
    path: &Path,
    what: &str,
    protect: &[Protected],
    allow: &[&Path],
    kinds: Option<&[&str]>,
) -> Result<bool> {
    let place = Place {
        path,
        what,
        advice: ADVICE_IN_PLACE,
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if is_absent(&e) => {
            check_writable(&nearest_existing_folder(&place)?, &place)?;
            return Ok(false);
        }
        Err(e) => return Err(place.refuse(format!("cannot access it: {}", os_reason(&e)))),
        Ok(_) => {}
    }
    if !path.is_dir() {
        return Err(place.refuse(if is_symlink(path) && !path.exists() {
            "is a broken symbolic link"
        } else {
            "is a file, not a folder"
        }));
    }
    let real = canonical(path);
    if let Some((rel, what, g, _)) = guard_hit(&real, protect) {
        return Err(place.refuse(format!("{rel} {what} ({})", g.display())));
    }
    if !allow.iter().any(|a| canonical(a) == real) {
        let empty = is_empty_folder(path)
            .map_err(|e| place.refuse(format!("cannot read the folder: {}", os_reason(&e))))?;
        if !empty {
            match (folder_kind(path), kinds) {
                (None, _) => {
                    return Err(place.advising(ADVICE_IN_PLACE_FOLDER).refuse(format!(
                        "the folder exists and holds files that lnsim did not write (it has no \
                         {MARKER_FILE} marker); lnsim writes only into folders it wrote itself"
                    )))
                }
                (Some(kind), Some(kinds)) if !kinds.contains(&kind.as_str()) => {
                    let wanted: Vec<String> = kinds.iter().map(|k| kind_description(k)).collect();
                    return Err(place.refuse(format!(
                        "holds {}, not {}",
                        kind_description(&kind),
                        wanted.join(" or ")
                    )));
                }
                _ => {}
            }
        }
    }
    check_writable(path, &place)?;
    Ok(true)
}

/// [`check_folder`], then creates the folder (and its parents) when absent and marks it as
/// `kind` when it was absent or empty, with an empty list of `files` (which grows as lnsim
/// writes them: [`claim_file`]).
pub fn prepare_folder(
    path: &Path,
    kind: &str,
    what: &str,
    protect: &[Protected],
    allow: &[&Path],
    kinds: Option<&[&str]>,
) -> Result<()> {
    let exists = check_folder(path, what, protect, allow, kinds)?;
    let made = (|| {
        let fresh = !exists || is_empty_folder(path)?;
        std::fs::create_dir_all(path)?;
        if fresh {
            let mut extra = serde_json::Map::new();
            extra.insert("files".into(), json!([]));
            write_marker(path, kind, extra)?;
        }
        Ok::<(), std::io::Error>(())
    })();
    made.map_err(|e| {
        Place {
            path,
            what,
            advice: ADVICE_IN_PLACE,
        }
        .refuse(format!("cannot create it: {}", os_reason(&e)))
    })
}

/// Writes the file `path` atomically: `data` goes into a new hidden file in the same folder
/// (`.NAME.tmp-PID-N`), which is then renamed over `path`. A crash leaves the old file or the new
/// one, never half of one; a symbolic link at `path` is replaced, never followed.
pub fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let leaf = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| std::io::Error::new(ErrorKind::InvalidInput, "not a file name"))?;
    let mut n = 0u32;
    let (tmp, mut file) = loop {
        let tmp = parent.join(format!(".{leaf}.tmp-{}-{n}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && n < 10_000 => n += 1,
            Err(e) => return Err(e),
        }
    };
    let written = (|| {
        file.write_all(data)?;
        file.sync_all()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o644))?;
        }
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp); // our own temporary file, left only by a failure
    }
    written
}

/// Writes the marker of `kind` into the folder `dir` (which exists), atomically: `written_by`,
/// `version`, `kind` and the fields of `extra` (e.g. `files: []`, the list of what lnsim wrote
/// there, which [`record_files`] extends).
pub fn write_marker(
    dir: &Path,
    kind: &str,
    extra: serde_json::Map<String, Value>,
) -> std::io::Result<()> {
    let mut v = json!({"written_by": WRITTEN_BY, "version": crate::VERSION, "kind": kind});
    if let Value::Object(m) = &mut v {
        m.extend(extra);
    }
    write_atomic(&dir.join(MARKER_FILE), (v.to_string() + "\n").as_bytes())
}

/// Adds `names` to the entries lnsim wrote into `dir` (its marker's `files`, kept sorted), when
/// its marker has that list; a folder without one is left as it is (it is judged by the names
/// lnsim writes there).
pub fn record_files(dir: &Path, names: &[&str]) -> std::io::Result<()> {
    let Some(mut m) = read_marker(dir) else {
        return Ok(());
    };
    let Some(list) = m.get_mut("files").and_then(Value::as_array_mut) else {
        return Ok(());
    };
    let mut files: Vec<String> = list
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let new: Vec<&&str> = names
        .iter()
        .filter(|n| !files.iter().any(|f| f == **n))
        .collect();
    if new.is_empty() {
        return Ok(());
    }
    files.extend(new.into_iter().map(|n| n.to_string()));
    files.sort();
    files.dedup();
    *list = files.into_iter().map(Value::from).collect();
    write_atomic(&dir.join(MARKER_FILE), (m.to_string() + "\n").as_bytes())
}

/// True when the entry `name` of the folder `dir` is one lnsim wrote (or is absent): listed by
/// the folder's marker ([`foreign_entries`]); in a folder lnsim did not write, only a `*.png`
/// figure (what `lnsim plot` wrote into a results folder before markers).
pub fn is_own_entry(dir: &Path, name: &str) -> bool {
    let path = dir.join(name);
    if std::fs::symlink_metadata(&path).is_err() {
        return true;
    }
    match foreign_entries(dir) {
        None => name.ends_with(".png") && !path.is_dir(),
        Some(foreign) => !foreign
            .iter()
            .any(|f| f == name || *f == format!("{name}/")),
    }
}

/// The folder holding the file `path` (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Checks that lnsim may write the file `path` (`what` names it in refusals: "figure", "bench
/// file"): absent, or an entry lnsim wrote ([`is_own_entry`]); not a folder. Returns its folder
/// and its name.
pub fn check_own_file(path: &Path, what: &str) -> Result<(PathBuf, String)> {
    let place = Place {
        path,
        what,
        advice: ADVICE_FILE,
    };
    if path.is_dir() && !is_symlink(path) {
        return Err(place.refuse("is a folder"));
    }
    let dir = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| place.refuse("does not end in a file name"))?;
    if !is_own_entry(dir, &name) {
        return Err(place.refuse(
            "the file exists and lnsim did not write it (lnsim never writes over a file it did \
             not write)",
        ));
    }
    Ok((dir.to_path_buf(), name))
}

/// [`check_own_file`], then records the file's name in its folder's marker
/// ([`record_files`]): what lnsim does before it writes a file into a folder it updates in place.
pub fn claim_file(path: &Path, what: &str) -> Result<()> {
    let (dir, name) = check_own_file(path, what)?;
    record_files(&dir, &[&name]).map_err(|e| {
        Place {
            path,
            what,
            advice: ADVICE_FILE,
        }
        .refuse(format!(
            "cannot record it in {}: {}",
            dir.join(MARKER_FILE).display(),
            os_reason(&e)
        ))
    })
}

/// True when the folder `dir` holds the partial results of a run that did not reach its end
/// (its marker or `summary.json` says `"complete": false`).
pub fn is_incomplete(dir: &Path) -> bool {
    let says_incomplete = |v: Option<Value>| {
        v.is_some_and(|v| v.get("complete").and_then(Value::as_bool) == Some(false))
    };
    says_incomplete(read_marker(dir))
        || says_incomplete(
            std::fs::read_to_string(dir.join("summary.json"))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok()),
        )
}

/// Why lnsim may not replace or delete the run folder `dir` of a sweep or a bench (a results
/// folder, or a sweep's point folder holding the `seed-*` run folders of its runs), with what to
/// do instead; `None` when it may: it is absent, empty, a results folder holding nothing but
/// what lnsim wrote ([`replace_problem`]: entries lnsim did not write are named), or an
/// unmarked folder whose every entry is such a folder.
pub fn run_folder_problem(dir: &Path) -> Option<String> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if is_absent(&e) => return None,
        Err(e) => {
            return Some(format!(
                "cannot access it: {}; {ADVICE_IN_PLACE}",
                os_reason(&e)
            ))
        }
        Ok(m) if m.file_type().is_symlink() => {
            return Some(format!(
                "is a symbolic link, not a folder lnsim wrote; {ADVICE_IN_PLACE}"
            ))
        }
        Ok(m) if !m.is_dir() => return Some(format!("is a file, not a folder; {ADVICE_IN_PLACE}")),
        Ok(_) => {}
    }
    if folder_kind(dir).is_some() {
        return replace_problem(dir);
    }
    let Some(list) = entries(dir) else {
        let why = std::fs::read_dir(dir)
            .err()
            .map(|e| os_reason(&e))
            .unwrap_or_default();
        return Some(format!("cannot read the folder: {why}; {ADVICE_IN_PLACE}"));
    };
    if list.iter().any(|(_, is_dir)| !is_dir) {
        return replace_problem(dir); // a folder of someone else's files
    }
    list.iter().find_map(|(name, _)| {
        run_folder_problem(&dir.join(name)).map(|problem| format!("{name}: {problem}"))
    })
}

/// Refuses, naming the run folder `dir` (`what`: "run folder of point p1") and saying why,
/// unless lnsim may replace it ([`run_folder_problem`]).
pub fn check_replaceable(dir: &Path, what: &str) -> Result<()> {
    match run_folder_problem(dir) {
        None => Ok(()),
        Some(problem) => Err(Error::Input(format!("{what} {}: {problem}", dir.display()))),
    }
}

/// Removes the run folder `dir` when lnsim may ([`run_folder_problem`]) and leaves anything else
/// alone; returns whether it was removed.
pub fn remove_folder(dir: &Path) -> std::io::Result<bool> {
    if !dir.is_dir() || is_symlink(dir) || run_folder_problem(dir).is_some() {
        return Ok(false);
    }
    std::fs::remove_dir_all(dir)?;
    Ok(true)
}

/// True when the file `path` is an HTML report written by `lnsim report` (its first 4 KiB hold
/// [`REPORT_GENERATOR`]).
pub fn is_lnsim_report(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .is_ok()
        && head
            .windows(REPORT_GENERATOR.len())
            .any(|w| w == REPORT_GENERATOR.as_bytes())
}

/// Checks that `lnsim report --out` may write the file `path`: absent, or an lnsim report
/// ([`is_lnsim_report`]); not a folder, not under a file, in a writable folder.
pub fn check_report_file(path: &Path) -> Result<()> {
    let place = Place {
        path,
        what: "report file",
        advice: "choose another --out, or remove the file yourself",
    };
    if path.is_dir() {
        return Err(place
            .advising("give a file name, e.g. --out report.html")
            .refuse("is a folder"));
    }
    if path.exists() || is_symlink(path) {
        if !path.is_file() {
            return Err(place.refuse("is not a regular file"));
        }
        if !is_lnsim_report(path) {
            return Err(place.refuse(
                "the file exists and was not written by lnsim report (lnsim overwrites only its \
                 own reports)",
            ));
        }
        return check_writable(folder_of(&canonical(path)), &place);
    }
    let dir = folder_of(path);
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        nearest_existing_folder(&place)?
    };
    check_writable(&dir, &place)
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
    fn replaces_an_empty_folder_and_its_own_results_folder() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("run");
        std::fs::create_dir(&out).unwrap();
        write(&out).unwrap();
        let m = read_marker(&out).unwrap();
        assert_eq!(
            m["files"],
            json!(["a.csv", "summary.json"]),
            "lists what it wrote"
        );
        std::fs::write(out.join("a.csv"), "changed").unwrap();
        write_folder(&out, &[("b.csv", "y\n")], &Marker::results(true, None), &[]).unwrap();
        assert!(
            !out.join("a.csv").exists() && out.join("b.csv").is_file(),
            "the old folder is replaced whole"
        );
        assert!(hidden_siblings(d.path()).is_empty(), "no temporary left");
    }

    #[test]
    fn refuses_a_results_folder_holding_entries_lnsim_did_not_write_naming_them() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("run");
        write(&out).unwrap();
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        std::fs::create_dir(out.join("sub")).unwrap();
        let e = write(&out).unwrap_err();
        assert!(matches!(e, Error::Input(_)));
        let msg = e.to_string();
        assert!(
            msg.contains("did not write: notes.txt, sub/;") && msg.contains("move them out"),
            "{msg}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("notes.txt")).unwrap(),
            "mine"
        );
        assert!(out.join("sub").is_dir() && out.join("a.csv").is_file());
        for k in 0..6 {
            std::fs::write(out.join(format!("x{k}")), "").unwrap();
        }
        let msg = write(&out).unwrap_err().to_string();
        assert!(msg.contains("x0, x1, x2 and 3 more"), "{msg}");
        assert!(hidden_siblings(d.path()).is_empty());
        // a folder under a name lnsim writes as a file is not lnsim's either
        let out2 = d.path().join("run2");
        write(&out2).unwrap();
        std::fs::remove_file(out2.join("a.csv")).unwrap();
        std::fs::create_dir(out2.join("a.csv")).unwrap();
        let msg = write(&out2).unwrap_err().to_string();
        assert!(msg.contains("did not write: a.csv/"), "{msg}");
    }

    #[test]
    fn a_marker_without_a_list_of_files_is_judged_by_the_names_lnsim_writes() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("run");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(
            out.join(MARKER_FILE),
            r#"{"written_by": "lnsim", "version": "0.1.0", "kind": "results", "complete": true}"#,
        )
        .unwrap();
        for f in RESULTS_FILES.iter().chain(&["bandwidth.png"]) {
            std::fs::write(out.join(f), "").unwrap();
        }
        assert_eq!(foreign_entries(&out), Some(vec![]));
        write(&out).unwrap();
        assert!(!out.join("ddbbm.csv").exists());
        std::fs::write(
            out.join(MARKER_FILE),
            "{\"written_by\": \"lnsim\", \"kind\": \"results\"}",
        )
        .unwrap();
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        assert_eq!(
            foreign_entries(&out),
            Some(vec!["a.csv".to_string(), "notes.txt".into()])
        );
        assert!(write(&out).is_err());
    }

    #[test]
    fn refuses_a_folder_of_another_kind_and_one_inside_a_sweep() {
        let d = tempfile::tempdir().unwrap();
        for (kind, says) in [
            (
                KIND_SWEEP,
                "holds an lnsim sweep (points/, sweep.csv, store.sqlite)",
            ),
            (KIND_FIGURES, "holds lnsim figures"),
            (KIND_BENCH, "holds an lnsim bench"),
            ("future", "holds lnsim output of kind \"future\""),
        ] {
            let out = d.path().join(kind);
            std::fs::create_dir(&out).unwrap();
            let m = format!(r#"{{"written_by": "lnsim", "kind": "{kind}", "files": []}}"#);
            std::fs::write(out.join(MARKER_FILE), &m).unwrap();
            let msg = write(&out).unwrap_err().to_string();
            assert!(
                msg.contains(says) && msg.contains("choose another --out"),
                "{msg}"
            );
            assert_eq!(std::fs::read_to_string(out.join(MARKER_FILE)).unwrap(), m);
        }
        let sweep = d.path().join(KIND_SWEEP);
        for inside in ["points/p/seed-1", "new"] {
            let msg = write(&sweep.join(inside)).unwrap_err().to_string();
            assert!(
                msg.contains(&format!(
                    "lies inside the lnsim sweep folder {}",
                    sweep.display()
                )),
                "{msg}"
            );
        }
        assert!(!sweep.join("new").exists() && !sweep.join("points").exists());
        // a sweep of an lnsim without markers
        let old = d.path().join("old-sweep");
        std::fs::create_dir_all(old.join("points")).unwrap();
        std::fs::write(old.join("sweep.csv"), "point,status\n").unwrap();
        assert_eq!(legacy_kind(&old), Some(KIND_SWEEP));
        let msg = write(&old).unwrap_err().to_string();
        assert!(msg.contains("holds an lnsim sweep"), "{msg}");
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
        assert_eq!(legacy_kind(&out), Some(KIND_RESULTS));
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        assert_eq!(legacy_kind(&out), None);
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
        std::fs::write(real.join("a.csv"), "stale").unwrap();
        write_folder(&link, &[("b.csv", "")], &Marker::results(true, None), &[]).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(real.join("b.csv").is_file() && !real.join("a.csv").exists());
    }

    #[test]
    fn incomplete_marker_says_so() {
        let m = Marker::results(false, Some("interrupted")).to_json();
        let v: Value = serde_json::from_str(&m).unwrap();
        assert_eq!(v["complete"], false);
        assert_eq!(v["stop_reason"], "interrupted");
        assert_eq!(v["written_by"], "lnsim");
    }

    /// A folder marked as `kind` with the listed `files` (as the Python layer's commands mark
    /// theirs).
    fn marked(dir: &Path, kind: &str, files: &[&str]) {
        std::fs::create_dir_all(dir).unwrap();
        let mut extra = serde_json::Map::new();
        extra.insert("files".into(), json!(files));
        write_marker(dir, kind, extra).unwrap();
    }

    fn check_sweep(path: &Path) -> Result<bool> {
        check_folder(path, "sweep folder", &[], &[], Some(&[KIND_SWEEP]))
    }

    fn prepare_sweep(path: &Path) {
        prepare_folder(
            path,
            KIND_SWEEP,
            "sweep folder",
            &[],
            &[],
            Some(&[KIND_SWEEP]),
        )
        .unwrap();
    }

    #[test]
    fn a_folder_updated_in_place_is_absent_empty_or_of_its_kind() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("sweep");
        assert!(!check_sweep(&out).unwrap(), "absent is fine");
        assert!(!out.exists(), "nothing created");
        prepare_sweep(&out);
        let m = read_marker(&out).unwrap();
        assert_eq!(
            (m["kind"].as_str(), &m["files"]),
            (Some(KIND_SWEEP), &json!([]))
        );
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        assert!(
            check_sweep(&out).unwrap(),
            "its own kind, foreign files kept"
        );
        prepare_sweep(&out);
        assert!(out.join("notes.txt").is_file());
        let figs = d.path().join("figs");
        marked(&figs, KIND_FIGURES, &[]);
        std::fs::write(figs.join("a.png"), "").unwrap();
        let msg = check_sweep(&figs).unwrap_err().to_string();
        assert_eq!(
            msg,
            format!(
                "sweep folder {}: holds lnsim figures (the PNGs of lnsim plot --out), not an \
                 lnsim sweep (points/, sweep.csv, store.sqlite); {ADVICE_IN_PLACE}",
                figs.display()
            )
        );
        let mine = d.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("thesis.tex"), "precious").unwrap();
        let msg = check_sweep(&mine).unwrap_err().to_string();
        assert!(
            msg.contains("has no .lnsim marker") && msg.ends_with("remove the folder yourself"),
            "{msg}"
        );
        assert!(
            check_folder(&mine, "figures folder", &[], &[&mine], None).unwrap(),
            "allowed"
        );
        let f = d.path().join("file");
        std::fs::write(&f, "").unwrap();
        assert!(check_sweep(&f)
            .unwrap_err()
            .to_string()
            .contains("is a file, not a folder"));
        let msg = check_sweep(&f.join("sub")).unwrap_err().to_string();
        assert!(msg.contains("which is a file, not a folder"), "{msg}");
        #[cfg(unix)]
        {
            let broken = d.path().join("broken");
            std::os::unix::fs::symlink(d.path().join("nowhere"), &broken).unwrap();
            let msg = check_sweep(&broken).unwrap_err().to_string();
            assert!(msg.contains("is a broken symbolic link"), "{msg}");
        }
    }

    #[test]
    fn a_folder_updated_in_place_never_holds_a_protected_one() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("sweep");
        let scen = out.join("scen");
        std::fs::create_dir_all(&scen).unwrap();
        let protect: &[Protected] = &[(&scen, "the scenario's folder")];
        let msg = check_folder(&out, "sweep folder", protect, &[&out], None)
            .unwrap_err()
            .to_string();
        let real = canonical(&scen);
        assert!(
            msg.contains(&format!("holds the scenario's folder ({})", real.display())),
            "{msg}"
        );
        let msg = check_folder(&scen, "sweep folder", protect, &[], None)
            .unwrap_err()
            .to_string();
        assert!(msg.contains(": is the scenario's folder ("), "{msg}");
    }

    #[cfg(unix)]
    #[test]
    fn an_atomic_write_replaces_a_symbolic_link_and_leaves_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("precious.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = d.path().join("sweep.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert!(!is_symlink(&link));
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new\n");
        assert_eq!(hidden_siblings(d.path()), Vec::<String>::new());
    }

    #[test]
    fn a_claimed_file_is_absent_or_lnsims_and_is_recorded() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("figs");
        marked(&out, KIND_FIGURES, &[]);
        claim_file(&out.join("b.png"), "figure").unwrap();
        claim_file(&out.join("a.png"), "figure").unwrap();
        assert_eq!(
            read_marker(&out).unwrap()["files"],
            json!(["a.png", "b.png"])
        );
        std::fs::write(out.join("a.png"), "").unwrap();
        claim_file(&out.join("a.png"), "figure").unwrap();
        std::fs::write(out.join("mine.png"), "").unwrap();
        let msg = claim_file(&out.join("mine.png"), "figure")
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("figure ") && msg.contains("lnsim did not write it"),
            "{msg}"
        );
        std::fs::create_dir(out.join("c.png")).unwrap();
        let msg = claim_file(&out.join("c.png"), "figure")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("c.png: is a folder; move it away"), "{msg}");
        // in a folder lnsim did not write, only a figure counts as lnsim's
        let plain = d.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        std::fs::write(plain.join("x.png"), "").unwrap();
        std::fs::write(plain.join("x.csv"), "").unwrap();
        assert!(is_own_entry(&plain, "x.png") && !is_own_entry(&plain, "x.csv"));
        assert!(is_own_entry(&plain, "absent.csv"));
    }

    #[test]
    fn a_run_folder_of_a_sweep_is_replaced_only_when_lnsim_wrote_all_of_it() {
        let d = tempfile::tempdir().unwrap();
        let point = d.path().join("p1");
        assert_eq!(run_folder_problem(&point), None, "absent");
        write(&point.join("seed-1")).unwrap();
        write(&point.join("seed-2")).unwrap();
        assert_eq!(
            run_folder_problem(&point),
            None,
            "a point folder of run folders"
        );
        std::fs::write(point.join("seed-2/notes.txt"), "").unwrap();
        let problem = run_folder_problem(&point).unwrap();
        assert!(
            problem.starts_with("seed-2: holds an entry that lnsim did not write: notes.txt;"),
            "{problem}"
        );
        assert!(!remove_folder(&point).unwrap() && point.join("seed-2/notes.txt").is_file());
        let msg = check_replaceable(&point, "run folder of point p1")
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with(&format!(
                "run folder of point p1 {}: seed-2:",
                point.display()
            )),
            "{msg}"
        );
        std::fs::remove_file(point.join("seed-2/notes.txt")).unwrap();
        assert!(remove_folder(&point).unwrap() && !point.exists());
        let f = d.path().join("f");
        std::fs::write(&f, "").unwrap();
        assert!(run_folder_problem(&f)
            .unwrap()
            .starts_with("is a file, not a folder"));
    }

    #[test]
    fn an_incomplete_run_is_told_by_its_marker_or_summary() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("run");
        write(&out).unwrap();
        assert!(!is_incomplete(&out));
        write_folder(
            &out,
            &files(),
            &Marker::results(false, Some("interrupted")),
            &[],
        )
        .unwrap();
        assert!(is_incomplete(&out));
        let old = d.path().join("old");
        std::fs::create_dir(&old).unwrap();
        std::fs::write(old.join("summary.json"), r#"{"complete": false}"#).unwrap();
        assert!(is_incomplete(&old));
    }

    #[test]
    fn a_report_file_is_absent_or_an_lnsim_report() {
        let d = tempfile::tempdir().unwrap();
        let page = d.path().join("report.html");
        check_report_file(&page).unwrap();
        std::fs::write(
            &page,
            format!("<html><head>{REPORT_GENERATOR}</head></html>"),
        )
        .unwrap();
        check_report_file(&page).unwrap();
        std::fs::write(&page, "<html>mine</html>").unwrap();
        let msg = check_report_file(&page).unwrap_err().to_string();
        assert!(msg.contains("was not written by lnsim report"), "{msg}");
        let msg = check_report_file(d.path()).unwrap_err().to_string();
        assert!(msg.contains("is a folder; give a file name"), "{msg}");
        let msg = check_report_file(&page.join("x.html"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("which is a file, not a folder"), "{msg}");
    }

    #[test]
    fn a_swap_puts_a_refused_old_folder_back_and_replaces_an_accepted_one() {
        let d = tempfile::tempdir().unwrap();
        let (new, target, aside) = (
            d.path().join(".new"),
            d.path().join("run"),
            d.path().join(".old"),
        );
        write(&target).unwrap();
        std::fs::write(target.join("notes.txt"), "mine").unwrap();
        std::fs::create_dir(&new).unwrap();
        match swap_in(&new, &target, &aside, run_folder_problem) {
            Err(SwapError::Refused(why)) => {
                assert!(why.contains("did not write: notes.txt;"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert!(target.join("notes.txt").is_file() && !aside.exists() && new.is_dir());
        std::fs::remove_file(target.join("notes.txt")).unwrap();
        std::fs::write(new.join("x.csv"), "").unwrap();
        swap_in(&new, &target, &aside, run_folder_problem).unwrap();
        assert!(target.join("x.csv").is_file() && !target.join("a.csv").exists());
        assert!(!aside.exists() && !new.exists());
    }
}
