//! The two simulation models a scenario can run on (`sim.model`).
//!
//! The values are the names the program already gives the two models in `summary.json`
//! (`"model"`), in `RunResult.model` and in `lnsim keys`: `"infiniband"` for the credit-level
//! InfiniBand model (the `credit/` wing) and `"cycle"` for the cycle-level router model (the
//! `cycle/` wing), so one name stands for one model everywhere.

crate::choice! {
    /// The simulation model a scenario runs on (`sim.model`).
    pub enum Model {
        /// The credit-level InfiniBand model: event-driven, picosecond time, 64-B credits,
        /// seconds of simulated time (IB CC spec §3).
        InfiniBand = "infiniband",
        /// The cycle-level router model: phits and cycles, CIOQ routers with allocators
        /// (Dragonfly spec §2).
        Cycle = "cycle",
    }
}

impl Model {
    /// The model in words (`"InfiniBand model"`, `"cycle-level model"`).
    pub fn text(self) -> &'static str {
        match self {
            Model::InfiniBand => "InfiniBand model",
            Model::Cycle => "cycle-level model",
        }
    }
}
