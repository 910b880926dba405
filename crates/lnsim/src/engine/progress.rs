//! The run loops' contact with the outside world while they simulate: an optional progress
//! bar on stderr and the interruption check (Ctrl-C from the command line, or the Python
//! caller), both at most ten times a wall-clock second so that they cost nothing per event.

use crate::error::{Error, Result};
use std::time::Instant;

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
