//! The calendar of the cycle-level model: a ring of per-cycle slots, each holding the events
//! of one cycle in one list per kind. A cycle handles each kind in a tight loop of its own (no
//! dispatch on the kind of every event). The order in which a cycle's events are handled
//! changes no result: every event only adds credits, marks a port or router for this cycle's
//! link and allocation stages, clears a wake-up flag, or acts on its own terminal or input
//! buffer, and those effects commute.

use super::Ev;

/// A packet's head reaching router input `gp` on VC `vc`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arrival {
    /// The packet.
    pub pkt: u32,
    /// Router input port.
    pub gp: u32,
    /// VC of the input buffer.
    pub vc: u8,
}

/// The events of one cycle, by kind (see [`Ev`] for what each means).
#[derive(Debug, Default)]
pub(crate) struct Slot {
    /// `Ev::Arrive`.
    pub arrive: Vec<Arrival>,
    /// `Ev::Credit`: (output port, VC).
    pub credit: Vec<(u32, u8)>,
    /// `Ev::XinFree`, `Ev::SpaceFree`, `Ev::XoutFree`: (port, its wake-up flag to clear); each
    /// wakes the port's router's allocator.
    pub port_free: Vec<(u32, u8)>,
    /// `Ev::OutReady`: output port.
    pub out_ready: Vec<u32>,
    /// `Ev::TermCredit`: terminal.
    pub term_credit: Vec<u32>,
    /// `Ev::Gen`: (terminal, epoch).
    pub gen: Vec<(u32, u32)>,
    /// `Ev::GenWait`: (terminal, epoch).
    pub gen_wait: Vec<(u32, u32)>,
    /// `Ev::TermTry`: terminal.
    pub term_try: Vec<u32>,
    /// `Ev::Pause` (`PFC_ON`, `PFC_OFF`) and `Ev::PfcDrained` (`PFC_DRAINED`): (port, VC, which).
    pub pfc: Vec<(u32, u8, u8)>,
}

/// [`Slot::pfc`]: a resume frame takes effect.
pub(crate) const PFC_OFF: u8 = 0;
/// [`Slot::pfc`]: a PAUSE frame takes effect.
pub(crate) const PFC_ON: u8 = 1;
/// [`Slot::pfc`]: an input's space is free (the XON check).
pub(crate) const PFC_DRAINED: u8 = 2;

impl Slot {
    /// Events in the slot.
    pub fn len(&self) -> usize {
        self.arrive.len()
            + self.credit.len()
            + self.port_free.len()
            + self.out_ready.len()
            + self.term_credit.len()
            + self.gen.len()
            + self.gen_wait.len()
            + self.term_try.len()
            + self.pfc.len()
    }

    /// Empties every list, keeping its capacity.
    fn clear(&mut self) {
        self.arrive.clear();
        self.credit.clear();
        self.port_free.clear();
        self.out_ready.clear();
        self.term_credit.clear();
        self.gen.clear();
        self.gen_wait.clear();
        self.term_try.clear();
        self.pfc.clear();
    }

    /// Files `ev` in its list (inlined where `ev`'s kind is known, this is one push).
    #[inline(always)]
    pub fn push(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive { pkt, gp, vc } => self.arrive.push(Arrival { pkt, gp, vc }),
            Ev::Credit { gp, vc } => self.credit.push((gp, vc)),
            Ev::XinFree { gp } => self.port_free.push((gp, super::flag::XIN_EVT)),
            Ev::SpaceFree { gp } => self.port_free.push((gp, super::flag::SPACE_EVT)),
            Ev::XoutFree { gp } => self.port_free.push((gp, super::flag::XOUT_EVT)),
            Ev::OutReady { gp } => self.out_ready.push(gp),
            Ev::TermCredit { t } => self.term_credit.push(t),
            Ev::Gen { t, epoch } => self.gen.push((t, epoch)),
            Ev::GenWait { t, epoch } => self.gen_wait.push((t, epoch)),
            Ev::TermTry { t } => self.term_try.push(t),
            Ev::Pause { gp, vc, on } => self.pfc.push((gp, vc, if on { PFC_ON } else { PFC_OFF })),
            Ev::PfcDrained { gp, vc } => self.pfc.push((gp, vc, PFC_DRAINED)),
        }
    }

    /// Every event of the slot (end-of-run checks).
    pub fn events(&self) -> impl Iterator<Item = Ev> + '_ {
        let a = self.arrive.iter().map(|a| Ev::Arrive {
            pkt: a.pkt,
            gp: a.gp,
            vc: a.vc,
        });
        let c = self.credit.iter().map(|&(gp, vc)| Ev::Credit { gp, vc });
        let f = self.port_free.iter().map(|&(gp, flag)| match flag {
            super::flag::XIN_EVT => Ev::XinFree { gp },
            super::flag::SPACE_EVT => Ev::SpaceFree { gp },
            _ => Ev::XoutFree { gp },
        });
        let o = self.out_ready.iter().map(|&gp| Ev::OutReady { gp });
        let tc = self.term_credit.iter().map(|&t| Ev::TermCredit { t });
        let g = self.gen.iter().map(|&(t, epoch)| Ev::Gen { t, epoch });
        let gw = self
            .gen_wait
            .iter()
            .map(|&(t, epoch)| Ev::GenWait { t, epoch });
        let tt = self.term_try.iter().map(|&t| Ev::TermTry { t });
        let pf = self.pfc.iter().map(|&(gp, vc, which)| match which {
            PFC_DRAINED => Ev::PfcDrained { gp, vc },
            on => Ev::Pause {
                gp,
                vc,
                on: on == PFC_ON,
            },
        });
        a.chain(c)
            .chain(f)
            .chain(o)
            .chain(tc)
            .chain(g)
            .chain(gw)
            .chain(tt)
            .chain(pf)
    }
}

/// The ring of slots: cycle `t` is slot `t & mask`.
pub(crate) struct Calendar {
    slots: Vec<Slot>,
    /// Ring length − 1 (a power of two − 1): how far ahead an event may be filed.
    pub mask: u64,
}

impl Calendar {
    /// A ring of `len` cycles (a power of two).
    pub fn new(len: u64) -> Self {
        debug_assert!(len.is_power_of_two());
        Calendar {
            slots: (0..len).map(|_| Slot::default()).collect(),
            mask: len - 1,
        }
    }

    /// Files `ev` at cycle `t` (after the current cycle, at most `mask` cycles ahead).
    #[inline(always)]
    pub fn push(&mut self, t: u64, ev: Ev) {
        self.slots[(t & self.mask) as usize].push(ev);
    }

    /// Takes the events of cycle `t` (hand the slot back with [`Calendar::give_back`]).
    #[inline]
    pub fn take(&mut self, t: u64) -> Slot {
        std::mem::take(&mut self.slots[(t & self.mask) as usize])
    }

    /// Returns the handled slot of cycle `t`, emptied, to keep its lists' capacity (unless
    /// events a whole ring ahead were filed there meanwhile).
    #[inline]
    pub fn give_back(&mut self, t: u64, mut s: Slot) {
        let cur = &mut self.slots[(t & self.mask) as usize];
        if cur.len() == 0 {
            s.clear();
            *cur = s;
        }
    }

    /// Every pending event (end-of-run checks).
    pub fn events(&self) -> impl Iterator<Item = Ev> + '_ {
        self.slots.iter().flat_map(|s| s.events())
    }
}
