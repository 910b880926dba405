//! The run loops' contact with the outside world while they simulate: an optional progress
//! bar on stderr and the interruption check (Ctrl-C from the command line, or the Python
//! caller), both at most ten times a wall-clock second so that they cost nothing per event;
//! and the set-up's phase timer and display ([`SetupProgress`]) before a run.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Progress bar and interruption polling of one run.
pub struct RunProgress {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    last_tick: Instant,
}

impl RunProgress {
    /// A progress display over `0..len` with the indicatif `template` when `show` is set.
    pub fn new(show: bool, len: u64, template: &str) -> Self {
        let bar = show.then(|| {
            let b = indicatif::ProgressBar::new(len);
            b.set_style(
                indicatif::ProgressStyle::with_template(template).expect("progress template"),
            );
            b
        });
        let now = Instant::now();
        RunProgress {
            bar,
            started: now,
            last_tick: now,
        }
    }

    /// Called often from the run loop: every 100 ms of wall time, polls `interrupted`
    /// (an interruption abandons the bar and returns [`Error::Interrupted`]) and moves the bar
    /// to `pos`, with the message `message(wall seconds elapsed)`.
    pub fn poll(
        &mut self,
        pos: u64,
        interrupted: &mut dyn FnMut() -> bool,
        message: impl FnOnce(f64) -> Option<String>,
    ) -> Result<()> {
        let now = Instant::now();
        if now.duration_since(self.last_tick).as_millis() < 100 {
            return Ok(());
        }
        self.last_tick = now;
        if interrupted() {
            if let Some(b) = &self.bar {
                b.abandon();
            }
            return Err(Error::Interrupted);
        }
        if let Some(b) = &self.bar {
            b.set_position(pos);
            if let Some(m) = message(now.duration_since(self.started).as_secs_f64()) {
                b.set_message(m);
            }
        }
        Ok(())
    }

    /// Clears the bar at the end of the run.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// A set-up phase longer than this shows the set-up display.
const SETUP_SHOW_AFTER: Duration = Duration::from_secs(1);

/// What the main thread and the display thread of a [`SetupProgress`] share.
struct SetupShared {
    /// The phase under way and whether the set-up is over.
    state: Mutex<(String, bool)>,
    /// Signalled when the set-up ends (the display stops at once).
    done: Condvar,
    /// The display appeared (the set-up lasted longer than [`SETUP_SHOW_AFTER`]).
    shown: AtomicBool,
}

/// Timing and display of a model's set-up (building the network before the run): the set-up
/// names each phase as it starts ([`SetupProgress::phase`]); the wall time of every phase is
/// kept ([`SetupProgress::times`]). With the display on, a set-up still under way after one
/// second shows a spinner on stderr naming the phase and the time so far, and when it ends one
/// line with the time of each phase; a shorter set-up shows nothing.
pub struct SetupProgress {
    shared: Option<Arc<SetupShared>>,
    display: Option<JoinHandle<()>>,
    started: Instant,
    phase_started: Instant,
    current: Option<&'static str>,
    times: Vec<(&'static str, f64)>,
}

impl SetupProgress {
    /// A set-up timer; `show` turns the display on (the caller decides: a progress flag, a
    /// terminal).
    pub fn new(show: bool) -> Self {
        Self::with_delay(show, SETUP_SHOW_AFTER)
    }

    /// [`SetupProgress::new`] whose display, when on, appears once the set-up has lasted
    /// `delay`.
    pub fn with_delay(show: bool, delay: Duration) -> Self {
        let now = Instant::now();
        let (shared, display) = if show {
            let shared = Arc::new(SetupShared {
                state: Mutex::new((String::new(), false)),
                done: Condvar::new(),
                shown: AtomicBool::new(false),
            });
            let s = Arc::clone(&shared);
            let display = std::thread::Builder::new()
                .name("lnsim-setup-progress".into())
                .spawn(move || setup_display(&s, now, delay))
                .ok();
            (Some(shared), display)
        } else {
            (None, None)
        };
        SetupProgress {
            shared,
            display,
            started: now,
            phase_started: now,
            current: None,
            times: Vec::new(),
        }
    }

    /// A timer without display (tests, library use).
    pub fn hidden() -> Self {
        Self::new(false)
    }

    /// Ends the phase under way (if any) and starts phase `name` (lower case, e.g.
    /// "channel-dependency check").
    pub fn phase(&mut self, name: &'static str) {
        self.end_phase();
        self.current = Some(name);
        if let Some(s) = &self.shared {
            if let Ok(mut st) = s.state.lock() {
                st.0 = name.to_string();
            }
        }
    }

    fn end_phase(&mut self) {
        let now = Instant::now();
        if let Some(name) = self.current.take() {
            let secs = now.duration_since(self.phase_started).as_secs_f64();
            match self.times.iter_mut().find(|(n, _)| *n == name) {
                Some(t) => t.1 += secs,
                None => self.times.push((name, secs)),
            }
        }
        self.phase_started = now;
    }

    /// Wall seconds of each phase so far, in the order they first ran.
    pub fn times(&self) -> &[(&'static str, f64)] {
        &self.times
    }

    /// Whether the display has appeared.
    pub fn shown(&self) -> bool {
        self.shared
            .as_ref()
            .is_some_and(|s| s.shown.load(Ordering::Relaxed))
    }

    /// Wall seconds since the set-up started.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Ends the set-up: stops the display and, when it was shown, prints the time of each
    /// phase on one line of stderr.
    pub fn finish(&mut self) {
        self.end_phase();
        let Some(s) = self.shared.take() else {
            return;
        };
        if let Ok(mut st) = s.state.lock() {
            st.1 = true;
        }
        s.done.notify_all();
        if let Some(d) = self.display.take() {
            let _ = d.join();
        }
        if s.shown.load(Ordering::Relaxed) {
            eprintln!("{}", self.summary());
        }
    }

    /// "set-up 3.2 s: topology 0.1 s, …" (phases of at least 0.05 s).
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .times
            .iter()
            .filter(|(_, t)| *t >= 0.05)
            .map(|(n, t)| format!("{n} {t:.1} s"))
            .collect();
        format!("set-up {:.1} s: {}", self.elapsed(), parts.join(", "))
    }
}

impl Drop for SetupProgress {
    fn drop(&mut self) {
        // an error ended the set-up: stop the display quietly
        if let Some(s) = self.shared.take() {
            if let Ok(mut st) = s.state.lock() {
                st.1 = true;
            }
            s.done.notify_all();
            if let Some(d) = self.display.take() {
                let _ = d.join();
            }
        }
    }
}

/// The display thread of a [`SetupProgress`]: waits `delay` (or the end), then shows a
/// spinner with the phase under way until the set-up ends.
fn setup_display(s: &SetupShared, started: Instant, delay: Duration) {
    let Ok(mut st) = s.state.lock() else {
        return;
    };
    while !st.1 {
        let left = delay.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        st = match s.done.wait_timeout(st, left) {
            Ok((g, _)) => g,
            Err(_) => return,
        };
    }
    if st.1 {
        return;
    }
    s.shown.store(true, Ordering::Relaxed);
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} setting up: {msg}")
            .expect("setup template"),
    );
    bar.enable_steady_tick(Duration::from_millis(100));
    while !st.1 {
        bar.set_message(format!(
            "{} ({:.0} s)",
            st.0,
            started.elapsed().as_secs_f64()
        ));
        st = match s.done.wait_timeout(st, Duration::from_millis(200)) {
            Ok((g, _)) => g,
            Err(_) => break,
        };
    }
    bar.finish_and_clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Phases are timed in the order they first run (a phase named again adds to its time),
    /// and the summary line names them.
    #[test]
    fn setup_phases_are_timed_in_order() {
        let mut p = SetupProgress::hidden();
        p.phase("topology");
        p.phase("routing");
        p.phase("topology");
        p.finish();
        let names: Vec<&str> = p.times().iter().map(|t| t.0).collect();
        assert_eq!(names, ["topology", "routing"]);
        assert!(!p.shown());
        assert!(p.summary().starts_with("set-up "), "{}", p.summary());
    }

    /// With the display on, it appears once the set-up outlasts its delay (here none) and
    /// stops with the set-up; an error (a dropped timer) stops it too.
    #[test]
    fn setup_display_appears_and_stops() {
        let mut p = SetupProgress::with_delay(true, Duration::ZERO);
        p.phase("channel-dependency check");
        let t = Instant::now();
        while !p.shown() && t.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(p.shown());
        p.finish();
        assert_eq!(p.times()[0].0, "channel-dependency check");
        let mut q = SetupProgress::with_delay(true, Duration::ZERO);
        q.phase("topology");
        drop(q);
        // a display that is off never appears
        let mut r = SetupProgress::with_delay(false, Duration::ZERO);
        r.phase("topology");
        std::thread::sleep(Duration::from_millis(20));
        assert!(!r.shown());
        r.finish();
    }
}
