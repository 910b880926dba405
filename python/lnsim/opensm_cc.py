"""InfiniBand congestion-control settings as OpenSM's configuration lines (``opensm.conf``,
the ``congestion_control`` and ``cc_*`` options of upstream OpenSM, ``osm_subnet.c``), written by
``lnsim tune`` as ``opensm-cc.conf`` for review (docs/tune.md, "OpenSM lines").

The mapping (lnsim key → OpenSM option):

- ``cc.threshold`` → ``cc_sw_cong_setting_threshold`` (same 0–15 scale), with
  ``cc.packet_size`` → ``cc_sw_cong_setting_packet_size`` (64-byte credits, ≤ 255): control-map
  bit 2;
- ``cc.marking_rate`` → ``cc_sw_cong_setting_marking_rate`` (≤ 65535): bit 4;
- ``cc.victim_mask`` true/false → ``cc_sw_cong_setting_victim_mask`` all ports / none: bit 0;
  ``"host_ports"`` (lnsim's default) has no global OpenSM form (OpenSM sets one mask for every
  switch): the mask is left out and a note says so;
- ``cc.level`` ``qp``/``sl`` → ``cc_ca_cong_setting_port_control`` 0x0/0x1;
- per SL (one set of lines per SL the flows use): ``cc.ccti_timer`` in ticks of 1.024 µs,
  ``cc.ccti_increase`` (≤ 255), ``cc.ccti_min`` (≤ 255);
- the Congestion Control Table → ``cc_cct`` as ``shift:multiplier`` entries (shift first), CCTI
  0 … ``cc.ccti_limit`` (OpenSM has no CCTI_Limit option: the limit is the number of entries
  − 1, at most 127).

Numbers are written in decimal without leading zeros (OpenSM reads them with ``strtoul(…, 0)``,
where a leading 0 means octal) or as ``0x`` hexadecimal.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

#: OpenSM's CCT holds at most this many entries (``OSM_CCT_ENTRY_MAX``).
CCT_MAX_ENTRIES = 128
#: The CCTI_Timer unit, 1.024 µs, in ns.
TIMER_TICK_NS = 1024
#: The largest CCT multiplier (14 bits) and shift (2 bits).
MAX_MULTIPLIER, MAX_SHIFT = 16383, 3
#: OpenSM reads a configuration line into a 1023-byte buffer: longer lines are cut.
MAX_LINE = 1000


def cct_entries(ird: Sequence[float]) -> List[Tuple[int, int]]:
    """IBA CCT entries ``(shift, multiplier)`` for injection-rate delays ``ird`` (packet times):
    IRD = multiplier · 2^−shift with the largest shift 0–3 that keeps the multiplier ≤ 16383
    (the finest step that fits); a delay beyond 16383 is clamped to it."""
    out = []
    for x in ird:
        x = max(0.0, float(x))
        for s in range(MAX_SHIFT, -1, -1):
            m = round(x * (1 << s))
            if m <= MAX_MULTIPLIER:
                out.append((s, m))
                break
        else:
            out.append((0, MAX_MULTIPLIER))
    return out


def write_conf(settings: Dict[str, Any], cct: Optional[Sequence[Tuple[int, int]]],
               scenario_cc: Optional[Dict[str, Any]] = None, sls: Sequence[int] = (0,),
               header: Sequence[str] = ()) -> Tuple[str, List[str]]:
    """The OpenSM lines of ``settings`` (``cc.*`` keys; ``cc.ccti_timer`` in 1.024 µs ticks),
    the CCT entries ``cct`` (CCTI 0 … ``cc.ccti_limit`` are written) and, for keys the settings
    do not have, ``scenario_cc`` (the scenario's ``[cc]`` values, lnsim's defaults otherwise);
    returns the text and the notes on what OpenSM cannot express."""
    sc = dict(scenario_cc or {})

    def get(key: str, default):
        return settings.get(f"cc.{key}", sc.get(key, default))

    notes: List[str] = []
    threshold = int(get("threshold", 2))
    packet_size = int(get("packet_size", 1))
    marking_rate = int(get("marking_rate", 1))
    victim = get("victim_mask", "host_ports")
    level = get("level", "qp")
    increase = int(get("ccti_increase", 1))
    ccti_min = int(get("ccti_min", 0))
    limit = int(get("ccti_limit", CCT_MAX_ENTRIES - 1))
    timer = settings.get("cc.ccti_timer")
    if timer is None:
        notes.append("cc.ccti_timer was not searched: written as 20 ticks (20.48 us, lnsim's default 20 us)")
        timer = 20
    timer = int(round(timer))
    control = 0b10100  # threshold + packet size, marking rate
    if packet_size > 255:
        notes.append(f"cc.packet_size {packet_size} is more than OpenSM's 255: written as 255")
        packet_size = 255
    if marking_rate > 65535:
        notes.append(f"cc.marking_rate {marking_rate} is more than OpenSM's 65535: written as 65535")
        marking_rate = 65535
    for name, v in (("ccti_increase", increase), ("ccti_min", ccti_min)):
        if v > 255:
            notes.append(f"cc.{name} {v} is more than OpenSM's 255: written as 255")
    increase, ccti_min = min(increase, 255), min(ccti_min, 255)
    if limit > CCT_MAX_ENTRIES - 1:
        notes.append(f"cc.ccti_limit {limit} is more than OpenSM's {CCT_MAX_ENTRIES - 1}: the table is cut there")
        limit = CCT_MAX_ENTRIES - 1
    if timer > 65535:
        notes.append(f"cc.ccti_timer {timer} ticks is more than OpenSM's 65535: written as 65535")
        timer = 65535
    mask_line = None
    if victim is True:
        control |= 1
        mask_line = "cc_sw_cong_setting_victim_mask 0x" + "7" + "F" * 63  # ports 0-254 (bit 255 reserved)
    elif victim is False:
        control |= 1
        mask_line = "cc_sw_cong_setting_victim_mask 0x0"
    else:
        notes.append('cc.victim_mask = "host_ports" (switch ports facing HCAs) has no global OpenSM form: '
                     "cc_sw_cong_setting_victim_mask is left out; set it per switch (ibccconfig "
                     "SwitchCongestionSetting) if the host ports differ between switches")
    lines = [f"# {h}" for h in header]
    lines += [
        "congestion_control TRUE",
        "cc_key 0x0000000000000000",
        "cc_max_outstanding_mads 500",
        f"cc_sw_cong_setting_control_map 0x{control:X}",
    ]
    if mask_line:
        lines.append(mask_line)
    lines += [
        "cc_sw_cong_setting_credit_mask 0x0",
        f"cc_sw_cong_setting_threshold 0x{threshold:X}",
        f"cc_sw_cong_setting_packet_size {packet_size}",
        "cc_sw_cong_setting_credit_starvation_threshold 0x0",
        "cc_sw_cong_setting_credit_starvation_return_delay 0:0",
        f"cc_sw_cong_setting_marking_rate {marking_rate}",
        f"cc_ca_cong_setting_port_control 0x{1 if level == 'sl' else 0:X}",
        f"cc_ca_cong_setting_control_map 0x{sum(1 << s for s in sls):X}",
    ]
    for s in sls:
        lines += [
            f"cc_ca_cong_setting_ccti_timer {s} {timer}",
            f"cc_ca_cong_setting_ccti_increase {s} {increase}",
            f"cc_ca_cong_setting_trigger_threshold {s} 0",
            f"cc_ca_cong_setting_ccti_min {s} {ccti_min}",
        ]
    if cct is not None:
        cct_line = "cc_cct " + ",".join(f"{s}:{m}" for s, m in list(cct)[: limit + 1])
        if len(cct_line) > MAX_LINE:
            notes.append(f"the cc_cct line has {len(cct_line)} characters: OpenSM reads at most 1023 per line")
        lines.append(cct_line)
    else:
        notes.append("the CCT was not searched: no cc_cct line (OpenSM then sends no table)")
    return "\n".join(lines) + "\n", notes
