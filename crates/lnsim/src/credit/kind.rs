//! The switch kind: what of a network's organisation the hot path knows at compile time.
//!
//! The run loop and the handlers of every event are generic over a [`SwitchKind`], chosen once
//! when the run starts ([`choose`], `run_loop.rs`): each kind is one compiled copy of the hot
//! path in which the organisation's questions (how credits are kept, output buffers or not,
//! congestion management or not, multipath routes, flow-control packets, the Input Adapter)
//! are constants, so that a copy carries no branch of an organisation it cannot meet. A kind
//! answers `Some(answer)` for what it fixes and `None` for what the handlers must read from the
//! network at run time; [`AnySwitch`] fixes nothing and runs every organisation (the general
//! copy), so a network that matches no narrower kind runs exactly as before.
//!
//! Every answer of a kind must hold for the network it runs ([`choose`] checks them all); a
//! wrong answer would run a network on a path that is not its own.

/// What a compiled copy of the hot path knows of the network it runs (see the module's text).
/// Each constant is `Some(answer)` when fixed for the copy, `None` when read at run time.
pub(crate) trait SwitchKind {
    /// Credits kept per VL in one pool per input buffer (`switch.buffer_sharing = "shared"`):
    /// `Some(true)`; per queue (`"static"`): `Some(false)`.
    const SHARED_POOL: Option<bool>;
    /// At most one queue of a switch input requests an output on a VL, and credits are kept
    /// per VL (`Arbitration::plain_buffers`: one queue per VL or per output, shared pool).
    const PLAIN: Option<bool>;
    /// The switches have output buffers (`switch.output_buffer_credits` > 0).
    const OUTPUT_BUFFERS: Option<bool>;
    /// A congestion management is present (its hooks are called; `false`: `cc` is off and
    /// no mechanism was selected by the queue scheme either).
    const CONGESTION_MANAGEMENT: Option<bool>;
    /// Packets may follow per-pair routes: DRB's multipath routes (`drb.enabled`) or S-mod-k's
    /// per-source up ports (`routing.dmodk_key = "source"`).
    const MULTIPATH: Option<bool>;
    /// Credits return in flow-control packets (`links.flow_control = "packets"`).
    const FLOW_CONTROL_PACKETS: Option<bool>;
    /// The HCAs inject through the Input Adapter (`hca.injection_queues = "scheme"`).
    const ADAPTER: Option<bool>;
    /// Credits returned to an output (a switch's or an HCA's sender) that is certain to be
    /// still busy when they arrive are kept aside and added when it frees, instead of arriving
    /// by an event (`flow_control.rs`, [`Net::return_credits`](crate::credit::Net)): nothing
    /// reads an output's credits while it is busy except the credit arrival itself, whose try
    /// of the output ends at once. Derived: needs the ideal credit return (no flow-control packets),
    /// no output buffers (whose links take the credits), no congestion management (which
    /// watches every credit arrival) and credits kept per VL (an output's counters are its
    /// VLs').
    const DEFER_CREDITS: bool = matches!(Self::FLOW_CONTROL_PACKETS, Some(false))
        && matches!(Self::SHARED_POOL, Some(true))
        && matches!(Self::OUTPUT_BUFFERS, Some(false))
        && matches!(Self::CONGESTION_MANAGEMENT, Some(false));
}

/// The general copy: every question is read from the network at run time.
pub(crate) struct AnySwitch;

impl SwitchKind for AnySwitch {
    const SHARED_POOL: Option<bool> = None;
    const PLAIN: Option<bool> = None;
    const OUTPUT_BUFFERS: Option<bool> = None;
    const CONGESTION_MANAGEMENT: Option<bool> = None;
    const MULTIPATH: Option<bool> = None;
    const FLOW_CONTROL_PACKETS: Option<bool> = None;
    const ADAPTER: Option<bool> = None;
}

/// The InfiniBand switch of the CC studies and the benchmark: input-buffered (no output
/// buffers), one queue per VL or per output sharing the VL's credit pool, credits returned
/// ideally, single-path routes, HCAs injecting per flow; `CM`: with congestion management.
pub(crate) struct SharedInputBuffered<const CM: bool>;

impl<const CM: bool> SwitchKind for SharedInputBuffered<CM> {
    const SHARED_POOL: Option<bool> = Some(true);
    const PLAIN: Option<bool> = Some(true);
    const OUTPUT_BUFFERS: Option<bool> = Some(false);
    const CONGESTION_MANAGEMENT: Option<bool> = Some(CM);
    const MULTIPATH: Option<bool> = Some(false);
    const FLOW_CONTROL_PACKETS: Option<bool> = Some(false);
    const ADAPTER: Option<bool> = Some(false);
}

/// The switch of the head-of-line blocking study (spec B.5): static buffers with credits kept
/// per queue, output buffers, queue schemes where several queues of an input may request one
/// output; single-path routes. Flow-control packets and the Input Adapter are read at run
/// time (the study runs with and without them); `CM`: with congestion management (the
/// mechanism the queue scheme selects, or `cc`).
pub(crate) struct StaticOutputBuffered<const CM: bool>;

impl<const CM: bool> SwitchKind for StaticOutputBuffered<CM> {
    const SHARED_POOL: Option<bool> = Some(false);
    const PLAIN: Option<bool> = Some(false);
    const OUTPUT_BUFFERS: Option<bool> = Some(true);
    const CONGESTION_MANAGEMENT: Option<bool> = Some(CM);
    const MULTIPATH: Option<bool> = Some(false);
    const FLOW_CONTROL_PACKETS: Option<bool> = None;
    const ADAPTER: Option<bool> = None;
}

/// The switch of the DRB study (drb-and-ddbbm spec A.8): one queue per VL sharing the VL's
/// credit pool, output buffers, multipath routes and a congestion management (DRB or
/// IBA_CC-S1). Flow-control packets and the Input Adapter are read at run time.
pub(crate) struct MultipathOutputBuffered;

impl SwitchKind for MultipathOutputBuffered {
    const SHARED_POOL: Option<bool> = Some(true);
    const PLAIN: Option<bool> = Some(false);
    const OUTPUT_BUFFERS: Option<bool> = Some(true);
    const CONGESTION_MANAGEMENT: Option<bool> = Some(true);
    const MULTIPATH: Option<bool> = Some(true);
    const FLOW_CONTROL_PACKETS: Option<bool> = None;
    const ADAPTER: Option<bool> = None;
}

/// The answer to one of a kind's questions: the kind's own when it fixes it, else `runtime`
/// (what the network says). With a fixed answer the compiler drops the other branch.
#[inline(always)]
pub(crate) const fn holds(fixed: Option<bool>, runtime: bool) -> bool {
    match fixed {
        Some(b) => b,
        None => runtime,
    }
}

/// Whether a kind's answer may be yes (unknown counts as maybe): guards a run-time look that a
/// kind answering no skips.
#[inline(always)]
pub(crate) const fn may(fixed: Option<bool>) -> bool {
    !matches!(fixed, Some(false))
}

/// What a network is, in the kind's questions (read once by the run loop, [`choose`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Organisation {
    /// [`SwitchKind::SHARED_POOL`].
    pub shared_pool: bool,
    /// [`SwitchKind::PLAIN`].
    pub plain: bool,
    /// [`SwitchKind::OUTPUT_BUFFERS`].
    pub output_buffers: bool,
    /// [`SwitchKind::CONGESTION_MANAGEMENT`].
    pub congestion_management: bool,
    /// [`SwitchKind::MULTIPATH`].
    pub multipath: bool,
    /// [`SwitchKind::FLOW_CONTROL_PACKETS`].
    pub flow_control_packets: bool,
    /// [`SwitchKind::ADAPTER`].
    pub adapter: bool,
}

/// The compiled copies of the hot path: which one runs a network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// [`AnySwitch`].
    Any,
    /// [`SharedInputBuffered`] without congestion management.
    SharedInputBuffered,
    /// [`SharedInputBuffered`] with congestion management.
    SharedInputBufferedCm,
    /// [`StaticOutputBuffered`] without congestion management.
    StaticOutputBuffered,
    /// [`StaticOutputBuffered`] with congestion management.
    StaticOutputBufferedCm,
    /// [`MultipathOutputBuffered`].
    MultipathOutputBuffered,
}

/// The narrowest kind whose every fixed answer holds for network `o`.
pub(crate) fn choose(o: &Organisation) -> Kind {
    fn fits<K: SwitchKind>(o: &Organisation) -> bool {
        let ok = |fixed: Option<bool>, actual: bool| fixed.is_none_or(|b| b == actual);
        ok(K::SHARED_POOL, o.shared_pool)
            && ok(K::PLAIN, o.plain)
            && ok(K::OUTPUT_BUFFERS, o.output_buffers)
            && ok(K::CONGESTION_MANAGEMENT, o.congestion_management)
            && ok(K::MULTIPATH, o.multipath)
            && ok(K::FLOW_CONTROL_PACKETS, o.flow_control_packets)
            && ok(K::ADAPTER, o.adapter)
    }
    if fits::<SharedInputBuffered<false>>(o) {
        Kind::SharedInputBuffered
    } else if fits::<SharedInputBuffered<true>>(o) {
        Kind::SharedInputBufferedCm
    } else if fits::<StaticOutputBuffered<false>>(o) {
        Kind::StaticOutputBuffered
    } else if fits::<StaticOutputBuffered<true>>(o) {
        Kind::StaticOutputBufferedCm
    } else if fits::<MultipathOutputBuffered>(o) {
        Kind::MultipathOutputBuffered
    } else {
        Kind::Any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ib(cm: bool) -> Organisation {
        Organisation {
            shared_pool: true,
            plain: true,
            output_buffers: false,
            congestion_management: cm,
            multipath: false,
            flow_control_packets: false,
            adapter: false,
        }
    }

    #[test]
    fn the_input_buffered_shared_pool_switch_gets_its_own_copy_with_and_without_cm() {
        assert_eq!(choose(&ib(false)), Kind::SharedInputBuffered);
        assert_eq!(choose(&ib(true)), Kind::SharedInputBufferedCm);
    }

    /// The head-of-line study's switch, with or without flow-control packets and the adapter.
    fn hol(cm: bool, flow_control_packets: bool, adapter: bool) -> Organisation {
        Organisation {
            shared_pool: false,
            plain: false,
            output_buffers: true,
            congestion_management: cm,
            multipath: false,
            flow_control_packets,
            adapter,
        }
    }

    #[test]
    fn the_static_output_buffered_switch_gets_its_own_copy_whatever_its_links_and_adapter() {
        for (fc, ad) in [(false, false), (true, false), (false, true), (true, true)] {
            assert_eq!(choose(&hol(false, fc, ad)), Kind::StaticOutputBuffered);
            assert_eq!(choose(&hol(true, fc, ad)), Kind::StaticOutputBufferedCm);
        }
    }

    /// The DRB study's switch, with or without flow-control packets and the adapter.
    fn drb(flow_control_packets: bool, adapter: bool) -> Organisation {
        Organisation {
            shared_pool: true,
            plain: false,
            output_buffers: true,
            congestion_management: true,
            multipath: true,
            flow_control_packets,
            adapter,
        }
    }

    #[test]
    fn the_multipath_output_buffered_switch_gets_its_own_copy() {
        for (fc, ad) in [(false, false), (true, false), (false, true), (true, true)] {
            assert_eq!(choose(&drb(fc, ad)), Kind::MultipathOutputBuffered);
        }
        let cases: [fn(&mut Organisation); 4] = [
            |o| o.congestion_management = false,
            |o| o.multipath = false,
            |o| o.output_buffers = false,
            |o| o.shared_pool = false,
        ];
        for change in cases {
            let mut o = drb(false, false);
            change(&mut o);
            assert_ne!(choose(&o), Kind::MultipathOutputBuffered, "{o:?}");
        }
    }

    #[test]
    fn any_answer_outside_a_kind_falls_back_to_the_general_copy() {
        let cases: [fn(&mut Organisation); 6] = [
            |o| o.shared_pool = false,
            |o| o.plain = false,
            |o| o.output_buffers = true,
            |o| o.multipath = true,
            |o| o.flow_control_packets = true,
            |o| o.adapter = true,
        ];
        for change in cases {
            let mut o = ib(false);
            change(&mut o);
            assert_eq!(choose(&o), Kind::Any, "{o:?}");
        }
        let hol_cases: [fn(&mut Organisation); 4] = [
            |o| o.shared_pool = true,
            |o| o.plain = true,
            |o| o.output_buffers = false,
            |o| o.multipath = true,
        ];
        for change in hol_cases {
            let mut o = hol(true, true, false);
            change(&mut o);
            assert_eq!(choose(&o), Kind::Any, "{o:?}");
        }
    }
}
