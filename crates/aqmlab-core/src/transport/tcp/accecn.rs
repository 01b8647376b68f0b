//! Accurate ECN feedback (RFC 9768), as Linux 7.3 implements it: the receiver's counters,
//! the ACE field and the AccECN option it sends, and the sender's decoding of them into the
//! count of CE-marked packets delivered (`tp->delivered_ce`) that DCTCP and Prague read.
//!
//! Sources (facts taken, code not): RFC 9768 sections 3.2.1 (the counters' initial values),
//! 3.2.2.2 (ACE: r.cep mod 8 on every ACK), 3.2.2.5 (the ambiguity of a 3-bit field and the
//! safety procedures of both ends), 3.2.3 and 3.2.3.1 (the option: 24-bit byte counters,
//! AccECN0/AccECN1 orders), 3.2.3.3 (when it is sent); Linux 7.3 include/net/tcp_ecn.h
//! (`tcp_ecn_received_counters`, `tcp_accecn_set_ace`, `tcp_update_ecn_bytes`,
//! `tcp_accecn_optfield_to_ecnfield`), include/net/tcp.h (`TCP_ACCECN_*`), net/ipv4/
//! tcp_input.c (`tcp_accecn_process_option`, `__tcp_accecn_process`, `tcp_accecn_process`)
//! and net/ipv4/tcp_output.c (`tcp_established_options`, `tcp_options_fit_accecn`,
//! `tcp_options_write`).
//!
//! Parameters: `tcp.ecn_feedback = "accecn"` turns it on (with `tcp.receiver_accecn`, the
//! peer's support, true by default); `tcp.accecn_option` (`full`, Linux's default
//! `net.ipv4.tcp_ecn_option = 2`; `minimum`, 1: on demand and as a beacon every srtt / 3,
//! `tcp_ecn_option_beacon = 3`; `disabled`, 0). Constants, Linux's: r.cep starts at 5
//! (`TCP_ACCECN_CEP_INIT_OFFSET`), r.e0b and r.e1b at 1, r.ceb at 0 (RFC 9768 3.2.1); an ACK
//! is sent at once after 6 unacknowledged CE marks (`TCP_ACCECN_ACE_MAX_DELTA`); the safety
//! factor of the byte check is 1/2 (`TCP_ACCECN_SAFETY_SHIFT = 1`).
//!
//! Receiver. Every data packet, in order or not, duplicate or not, counts (RFC 9768 3.2.2.2:
//! "every ... packet"): a CE packet adds 1 to r.cep, and its payload to the byte counter of
//! its codepoint (`tcp_ecn_received_counters`). Every ACK carries ACE = r.cep mod 8 in AE,
//! CWR and ECE (`tcp_accecn_set_ace`). A change of the codepoint from the last packet's
//! (`ecn_edge`) ACKs at once (RFC 9768 3.2.2.5.1's change-triggered ACKs); so do 6 CE marks
//! not yet fed back (the receiver's safety procedure, so that ACE cannot wrap on the ACKs it
//! sends). With `full` the option goes on every ACK; with `minimum` on the two ACKs after a
//! CE mark or a change of codepoint, after a byte counter crosses a multiple of 2^22, and
//! when srtt / 3 has passed since the last (the receiver's srtt being the handshake's RTT).
//! It carries as many fields as fit beside the SACK blocks, and at least the fields up to the
//! one of the furthest codepoint received (`accecn_minlen`: ECT(1) 1, CE 2, ECT(0) 3), for
//! which a SACK block is given up (`tcp_options_fit_accecn`). The option space is modelled with the timestamps option
//! present (Linux's default, `tcp_timestamps = 1`; aqmlab's receiver reports at most the 3
//! SACK blocks that leaves room for), whatever `tcp.timestamps` says (it picks the RTT
//! samples).
//!
//! Sender (`__tcp_accecn_process`): on an ACK that delivers something new (cumulatively or
//! by SACK; Linux's FLAG_FORWARD_PROGRESS, its timestamp progress not modelled), the option's
//! fields update the sender's byte counters, each by the 24-bit difference sign-extended
//! (`tcp_update_ecn_bytes`); without an option the bytes delivered are added to the counter
//! of the codepoint that last changed alone (`est_ecnfield`). The CE delta is then
//! d = (ACE - 5 - delivered_ce) mod 8, when the ACK delivers at most 7 packets. Above 7 it
//! may have wrapped: safe = n - ((n - d) mod 8), the most CE packets that n delivered packets
//! can hold with that ACE; the CE byte counter's change d_ceb decides between d and safe
//! when it is trustworthy (one field changed alone): with 16 or more packets the estimate
//! d + (ceil(d_ceb n / bytes) rounded down to a multiple of 8), at most safe; else safe when
//! d_ceb > d MSS, d when d_ceb < safe MSS / 2. Without a usable option, d if the ACKs have
//! averaged more than 4 packets (an EWMA of gain 1/64, `pkts_acked_ewma`: ACK compression
//! rather than lost ACKs), else safe. A delta
//! above 0 is the ACK's FLAG_ECE: the sender's ECN response (`tcp_enter_cwr`), and the
//! controller's CE count. The sender sets no CWR (`tcp_ecn_queue_cwr` is for RFC 3168 only).
//!
//! Not modelled: the handshake's ACE codes as a negotiation (RFC 9768 3.1.1's Table 2; the
//! pcap writes them, the outcome is read from the configuration,
//! `TcpConfig::ecn_feedback_in_use`), the
//! mangling and zeroing checks (no middlebox), `tcp_ecn_option = 3` (`persist`, which
//! differs only after a failure), the AccECN0 order (Linux writes only AccECN1).

use super::AccEcnOptionSending;
use crate::net::{AccEcnOption, Ecn};
use crate::sim::Time;

/// r.cep's initial value (RFC 9768 3.2.1; `TCP_ACCECN_CEP_INIT_OFFSET`).
pub const CEP_INIT: u32 = 5;
/// r.e1b's and r.e0b's initial values (`TCP_ACCECN_E1B_INIT_OFFSET`, `..._E0B_...`).
pub const E1B_INIT: u32 = 1;
pub const E0B_INIT: u32 = 1;
/// r.ceb's initial value (`TCP_ACCECN_CEB_INIT_OFFSET`).
pub const CEB_INIT: u32 = 0;

const ACE_MASK: u32 = 0x7;
const COUNTER_MASK: u32 = 0xff_ffff;
/// CE marks not yet fed back that make the receiver ACK at once (`TCP_ACCECN_ACE_MAX_DELTA`).
const ACE_MAX_DELTA: u32 = 6;
/// `TCP_ACCECN_SAFETY_SHIFT`: the byte check's factor 1/2.
const SAFETY_SHIFT: u32 = 1;
/// With `minimum`: the option at least every srtt / 3 (`TCP_ACCECN_OPTION_BEACON`, the
/// default of `net.ipv4.tcp_ecn_option_beacon`).
const OPTION_BEACON: u64 = 3;
/// With `minimum`: the option after a byte counter crosses a multiple of 2^22 (the bits
/// `GENMASK_U32(31, 22)`), before its 24-bit field could wrap unseen.
const BYTES_DEMAND_SHIFT: u32 = 22;
/// `pkts_acked_ewma`: gain 2^-6, 6 fraction bits; ACKs averaging above 4 packets are
/// compressed (`PKTS_ACKED_WEIGHT`, `PKTS_ACKED_PREC`, `ACK_COMP_THRESH`).
const EWMA_WEIGHT: u32 = 6;
const EWMA_PREC: u32 = 6;
const ACK_COMP_THRESH: u32 = 4;

/// An ECN codepoint with a byte counter, as an index (Linux's `ecnfield - 1` for ECT(1),
/// ECT(0), CE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Ect1 = 0,
    Ect0 = 1,
    Ce = 2,
}

impl Field {
    fn of(ecn: &Ecn) -> Option<Field> {
        match ecn.field() {
            0b11 => Some(Field::Ce),
            0b01 => Some(Field::Ect1),
            0b10 => Some(Field::Ect0),
            _ => None,
        }
    }

    /// The option fields up to this one in AccECN1 order (`tcp_ecnfield_to_accecn_optfield`).
    fn option_length(self) -> u8 {
        match self {
            Field::Ect1 => 1,
            Field::Ce => 2,
            Field::Ect0 => 3,
        }
    }

    fn init(self) -> u32 {
        match self {
            Field::Ect1 => E1B_INIT,
            Field::Ect0 => E0B_INIT,
            Field::Ce => CEB_INIT,
        }
    }
}

/// AccECN1's fields in their order (`tcp_accecn_optfield_to_ecnfield` with order 1).
const ORDER1: [Field; 3] = [Field::Ect1, Field::Ce, Field::Ect0];

/// The ACE field of an ACK: (AE, CWR, ECE) from the top bit down.
pub fn ace_of(ecn: &Ecn) -> u32 {
    (u32::from(ecn.ae) << 2) | (u32::from(ecn.cwr) << 1) | u32::from(ecn.ece)
}

/// Writes `ace` (mod 8) into an ACK's AE, CWR and ECE.
pub fn set_ace(ecn: &mut Ecn, ace: u32) {
    ecn.ae = ace & 4 != 0;
    ecn.cwr = ace & 2 != 0;
    ecn.ece = ace & 1 != 0;
}

/// TCP option bytes (a 4-bit data offset of 15 words less the 20-byte header), the
/// timestamps option with its two NOPs, SACK's two NOPs, kind and length, a SACK block, the
/// AccECN option's kind and length and a field (include/net/tcp.h).
const OPTION_SPACE: i32 = 40;
const TIMESTAMPS_ALIGNED: i32 = 12;
const SACK_BASE_ALIGNED: i32 = 4;
const SACK_PER_BLOCK: i32 = 8;
const ACCECN_BASE: i32 = 2;
const ACCECN_PER_FIELD: i32 = 3;

/// The AccECN fields an ACK with `sack_blocks` SACK blocks can carry when at least
/// `required` are needed, and the SACK blocks left beside them; None: no option (Linux
/// `tcp_options_fit_accecn` with what `tcp_established_options` leaves after the timestamps
/// and the SACK blocks). The option may take the two NOPs that align the SACK option, and
/// with `required` fields that do not fit, one SACK block of three is given up for them.
pub fn fit_option(required: u8, sack_blocks: usize) -> Option<(u8, usize)> {
    let mut sack = sack_blocks as i32;
    let used = TIMESTAMPS_ALIGNED
        + if sack > 0 {
            SACK_BASE_ALIGNED + SACK_PER_BLOCK * sack
        } else {
            0
        };
    let mut room = OPTION_SPACE - used;
    let saving = if sack > 0 { 2 } else { 0 };
    let required = i32::from(required);
    let full = ACCECN_BASE + 3 * ACCECN_PER_FIELD;
    let (mut fields, mut size) = (3, full);
    while fields >= required {
        let aligned = if size & 3 > saving {
            (size + 3) & !3
        } else {
            size & !3
        };
        if room >= aligned {
            break;
        }
        if fields == required && sack > 2 && required > 0 {
            sack -= 1;
            room += SACK_PER_BLOCK;
            (fields, size) = (3, full);
            continue;
        }
        fields -= 1;
        size -= ACCECN_PER_FIELD;
    }
    (fields >= required).then_some((fields as u8, sack as usize))
}

/// The data receiver's counters (RFC 9768 3.2.1; Linux `received_ce`,
/// `received_ecn_bytes`, `accecn_minlen`).
#[derive(Debug, Clone)]
pub struct AccEcnReceiver {
    /// CE packets received (r.cep less its initial 5).
    ce_packets: u32,
    /// CE packets not yet fed back by an ACK (`received_ce_pending`).
    ce_pending: u32,
    /// Payload bytes received per codepoint, ECT(1), ECT(0), CE (less the initial offsets).
    bytes: [u32; 3],
    /// The codepoint of the last data packet (`prev_ecnfield`): None is Not-ECT.
    last: Option<Field>,
    /// The fewest option fields the next option needs (`accecn_minlen`).
    min_fields: u8,
    sending: AccEcnOptionSending,
    /// With `minimum`: the next ACKs that must carry the option (`accecn_opt_demand`), when
    /// the last one did (`accecn_opt_tstamp`), and the smoothed RTT the beacon divides (0:
    /// no sample).
    demand: u8,
    last_option_at: Time,
    srtt: Time,
}

impl AccEcnReceiver {
    pub fn new(sending: AccEcnOptionSending) -> Self {
        AccEcnReceiver {
            ce_packets: 0,
            ce_pending: 0,
            bytes: [0; 3],
            last: None,
            min_fields: 0,
            sending,
            demand: 0,
            last_option_at: 0,
            srtt: 0,
        }
    }

    /// The receiver's smoothed RTT, the handshake's sample (`minimum`'s beacon).
    pub fn set_srtt(&mut self, srtt: Time) {
        self.srtt = srtt;
    }

    /// A data packet of `payload` bytes arrived with `ecn`; true if it is to be ACKed at
    /// once (a change of codepoint, or `ACE_MAX_DELTA` CE marks not yet fed back).
    pub fn on_data(&mut self, ecn: &Ecn, payload: u32) -> bool {
        let field = Field::of(ecn);
        if let Some(f) = field {
            if f == Field::Ce {
                self.ce_packets = self.ce_packets.wrapping_add(1);
                self.ce_pending = (self.ce_pending + 1).min(0xf);
            }
            if payload > 0 {
                let b = &mut self.bytes[f as usize];
                let before = *b;
                *b = b.wrapping_add(payload);
                self.min_fields = self.min_fields.max(f.option_length());
                if (*b ^ before) >> BYTES_DEMAND_SHIFT != 0 {
                    self.demand = self.demand.max(1);
                }
            }
        }
        let edge = field != self.last;
        self.last = field;
        if edge || field == Some(Field::Ce) {
            // Two ACKs with the option, so that the later one shows the new codepoint
            // unambiguously (`tcp_ecn_received_counters`).
            self.demand = 2;
        }
        edge || self.ce_pending >= ACE_MAX_DELTA
    }

    /// The ACE field of the next ACK (r.cep mod 8); the marks are then fed back.
    pub fn ace(&mut self) -> u32 {
        self.ce_pending = 0;
        self.ce_packets.wrapping_add(CEP_INIT) & ACE_MASK
    }

    /// The option for an ACK sent at `now` with `sack_blocks` SACK blocks, and the SACK
    /// blocks it leaves (`tcp_established_options`; writing it resets the fields required
    /// and spends a demand, `tcp_options_write`).
    pub fn option(&mut self, now: Time, sack_blocks: usize) -> (Option<AccEcnOption>, usize) {
        let due = match self.sending {
            AccEcnOptionSending::Full => true,
            AccEcnOptionSending::Disabled => false,
            AccEcnOptionSending::Minimum => {
                self.demand > 0
                    || now
                        .saturating_sub(self.last_option_at)
                        .saturating_mul(OPTION_BEACON)
                        >= self.srtt
            }
        };
        if !due {
            return (None, sack_blocks);
        }
        let Some((fields, kept)) = fit_option(self.min_fields, sack_blocks) else {
            return (None, sack_blocks);
        };
        self.min_fields = 0;
        self.demand = self.demand.saturating_sub(1);
        self.last_option_at = now;
        let wire = |f: Field| self.bytes[f as usize].wrapping_add(f.init()) & COUNTER_MASK;
        let opt = AccEcnOption {
            fields,
            e1b: wire(Field::Ect1),
            ceb: wire(Field::Ce),
            e0b: wire(Field::Ect0),
        };
        (Some(opt), kept)
    }
}

/// What one ACK tells the sender, beside its ACE and option.
#[derive(Debug, Clone, Copy)]
pub struct AckDelivery {
    /// Packets it newly delivers, cumulatively or by SACK (`tp->delivered - delivered`).
    pub packets: u32,
    /// Their payload bytes (`sack_state.delivered_bytes`).
    pub bytes: u32,
    /// Whether it delivers anything new (`FLAG_FORWARD_PROGRESS`).
    pub progress: bool,
}

/// The data sender's side (Linux `delivered_ce`, `delivered_ecn_bytes`, `est_ecnfield`,
/// `pkts_acked_ewma`, `saw_accecn_opt`).
#[derive(Debug, Clone)]
pub struct AccEcnSender {
    /// CE packets delivered, as decoded (s.cep less its initial 5).
    delivered_ce: u32,
    /// Payload bytes delivered per codepoint (ECT(1), ECT(0), CE), as the option reports.
    bytes: [u32; 3],
    /// The codepoint whose counter changed alone last, to which ACKs without the option
    /// add their bytes (`est_ecnfield`).
    estimate: Option<Field>,
    /// Packets per ACK, an EWMA with 6 fraction bits (`pkts_acked_ewma`).
    pkts_acked_ewma: u32,
    saw_option: bool,
    /// Payload bytes of a full segment (`mss_cache`).
    mss: u32,
    /// The connection has SACK (`tcp_is_sack`), which lets the byte estimate run in any
    /// state.
    sack: bool,
}

impl AccEcnSender {
    pub fn new(mss: u32, sack: bool) -> Self {
        AccEcnSender {
            delivered_ce: 0,
            bytes: [0; 3],
            estimate: None,
            pkts_acked_ewma: 0,
            saw_option: false,
            mss,
            sack,
        }
    }

    /// CE packets delivered so far.
    pub fn delivered_ce(&self) -> u32 {
        self.delivered_ce
    }

    /// The CE packets this ACK newly reports (`tcp_accecn_process`); `open_or_cwr`: the
    /// sender is in the Open or CWR state (without SACK the byte estimate needs it).
    pub fn on_ack(
        &mut self,
        ace: u32,
        option: Option<AccEcnOption>,
        d: AckDelivery,
        open_or_cwr: bool,
    ) -> u32 {
        let delta = self.decode(ace, option, d, open_or_cwr);
        self.delivered_ce = self.delivered_ce.wrapping_add(delta);
        delta
    }

    /// `tcp_accecn_process_option`: whether the CE byte counter's change can be trusted.
    fn read_option(&mut self, option: Option<AccEcnOption>, delivered_bytes: u32) -> bool {
        let Some(opt) = option else {
            if !self.saw_option {
                return false;
            }
            // Without an option the bytes go to the codepoint that last changed alone.
            return match self.estimate {
                Some(f) => {
                    let b = &mut self.bytes[f as usize];
                    *b = b.wrapping_add(delivered_bytes);
                    true
                }
                None => false,
            };
        };
        self.saw_option = true;
        let mut valid = self.estimate.is_some();
        let mut ambiguous = false;
        let mut first_changed = false;
        let wire = [opt.e1b, opt.ceb, opt.e0b];
        for (i, &field) in ORDER1.iter().enumerate().take(usize::from(opt.fields)) {
            let counter = &mut self.bytes[field as usize];
            let reported = wire[i].wrapping_sub(field.init()) & COUNTER_MASK;
            // The 24-bit difference, sign-extended (`tcp_update_ecn_bytes`).
            let delta = (((reported.wrapping_sub(*counter) & COUNTER_MASK) << 8) as i32) >> 8;
            *counter = counter.wrapping_add(delta as u32);
            if delta < 0 {
                valid = false;
                ambiguous = true;
            }
            if delta != 0 && Some(field) != self.estimate {
                if first_changed {
                    valid = false;
                    ambiguous = true;
                } else {
                    self.estimate = Some(field);
                    first_changed = true;
                }
            }
        }
        if ambiguous {
            self.estimate = None;
        }
        valid
    }

    /// `__tcp_accecn_process`.
    fn decode(
        &mut self,
        ace: u32,
        option: Option<AccEcnOption>,
        d: AckDelivery,
        open_or_cwr: bool,
    ) -> u32 {
        if !d.progress {
            // A reordered ACK, or one that tells nothing new: its ACE is read by the next.
            return 0;
        }
        let old_ceb = self.bytes[Field::Ce as usize];
        let option_valid = self.read_option(option, d.bytes);
        let n = d.packets;
        if n > 0 {
            let sample = n << EWMA_PREC;
            let ewma = if self.pkts_acked_ewma == 0 {
                sample
            } else {
                let e = self.pkts_acked_ewma;
                (((e << EWMA_WEIGHT) - e) + sample) >> EWMA_WEIGHT
            };
            self.pkts_acked_ewma = ewma.min(0xffff);
        }
        let delta = ace.wrapping_sub(CEP_INIT).wrapping_sub(self.delivered_ce) & ACE_MASK;
        if n <= ACE_MASK {
            // At most 7 packets: the field cannot have wrapped.
            return delta;
        }
        // The most CE packets n delivered packets can hold with this ACE (RFC 9768
        // 3.2.2.5.2: assume the field wrapped as often as it could).
        let safe = n - (n.wrapping_sub(delta) & ACE_MASK);
        if option_valid {
            let d_ceb = self.bytes[Field::Ce as usize].wrapping_sub(old_ceb);
            if d_ceb == 0 {
                return delta;
            }
            if n >= (ACE_MASK + 1) * 2 && (self.sack || open_or_cwr) {
                if d.bytes <= d_ceb {
                    return safe;
                }
                let est = (u64::from(d_ceb) * u64::from(n)).div_ceil(u64::from(d.bytes)) as u32;
                return safe.min(delta + (est & !ACE_MASK));
            }
            if u64::from(d_ceb) > u64::from(delta) * u64::from(self.mss) {
                return safe;
            }
            if u64::from(d_ceb) < (u64::from(safe) * u64::from(self.mss)) >> SAFETY_SHIFT {
                return delta;
            }
        } else if self.pkts_acked_ewma > ACK_COMP_THRESH << EWMA_PREC {
            // ACKs habitually cover more than 4 packets (ACK compression rather than lost
            // ACKs): Linux then takes ACE as not wrapped.
            return delta;
        }
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ecn(ect1: bool, ce: bool) -> Ecn {
        Ecn {
            ect: true,
            ect1,
            ce,
            ..Ecn::default()
        }
    }

    /// `tcp_options_fit_accecn` after the timestamps (12 bytes) and k SACK blocks (4 + 8k):
    /// 28 - 8k bytes are left, plus the SACK option's 2 NOPs when k > 0. All 3 fields take
    /// 11 bytes, 12 aligned (8 with k > 0: 11 & 3 = 3 is more than the 2 NOPs save, so 12);
    /// 2 fields 8; 1 field 5, 4 with the NOPs; none 2, 0 with the NOPs.
    #[test]
    fn the_fields_that_fit_beside_the_sack_blocks() {
        // No SACK: 28 bytes, all 3 fields. One block: 16 left, 12 fit.
        assert_eq!(fit_option(0, 0), Some((3, 0)));
        assert_eq!(fit_option(3, 1), Some((3, 1)));
        // Two blocks: 8 left: 2 fields (8), not 3 (12); 3 required: no option, as only a
        // third block is ever given up.
        assert_eq!(fit_option(0, 2), Some((2, 2)));
        assert_eq!(fit_option(2, 2), Some((2, 2)));
        assert_eq!(fit_option(3, 2), None);
        // Three blocks: 0 left: the option's kind and length alone in the NOPs; 1 or 2 fields
        // required give up the third block (8 bytes back: 2 fields fit); 3 still do not fit.
        assert_eq!(fit_option(0, 3), Some((0, 3)));
        assert_eq!(fit_option(1, 3), Some((2, 2)));
        assert_eq!(fit_option(2, 3), Some((2, 2)));
        assert_eq!(fit_option(3, 3), None);
    }

    /// RFC 9768 3.2.1 and 3.2.2.2, `tcp_ecn_received_counters`, `tcp_accecn_set_ace`: an L4S
    /// flow's packets (ECT(1), CE) of 1000 bytes.
    #[test]
    fn receiver_counters_ace_and_option_by_hand() {
        let mut r = AccEcnReceiver::new(AccEcnOptionSending::Full);
        // ACE starts at r.cep = 5.
        assert_eq!(r.ace(), 5);
        // The first packet changes the codepoint from none (Not-ECT): ACKed at once.
        assert!(r.on_data(&ecn(true, false), MSS));
        assert!(!r.on_data(&ecn(true, false), MSS));
        // ECT(1) -> CE: at once; r.cep 6.
        assert!(r.on_data(&ecn(true, true), MSS));
        assert_eq!(r.ace(), 6);
        // CE -> CE: no change, 1 mark pending; CE -> ECT(1): at once. r.cep 7.
        assert!(!r.on_data(&ecn(true, true), MSS));
        assert!(r.on_data(&ecn(true, false), MSS));
        assert_eq!(r.ace(), 7);
        // Bytes: ECT(1) 3 x 1000 + 1 = 3001, CE 2 x 1000 + 0, ECT(0) none + 1. CE was the
        // furthest field received (2), so two fields were required; no SACK block: 3 fit.
        let (opt, kept) = r.option(0, 0);
        let want = AccEcnOption {
            fields: 3,
            e1b: 3001,
            ceb: 2000,
            e0b: 1,
        };
        assert_eq!((opt, kept), (Some(want), 0));
        // With three SACK blocks and nothing received since: the bare option, all blocks.
        assert_eq!(r.option(0, 3).0.map(|o| o.fields), Some(0));
        // A CE packet requires 2 fields again: a block is given up for them.
        assert!(r.on_data(&ecn(true, true), MSS));
        assert_eq!(r.option(0, 3).1, 2);
        // That CE left 1 mark pending (no ACK has read ACE since). Seven more: pending
        // reaches 6 at the fifth (1 + 5), which is ACKed at once (`TCP_ACCECN_ACE_MAX_DELTA`).
        let mut acks_at_once = vec![];
        for i in 0..7 {
            if r.on_data(&ecn(true, true), MSS) {
                acks_at_once.push(i);
                r.ace();
            }
        }
        assert_eq!(acks_at_once, vec![4]);
        // 2 + 1 + 7 = 10 CE packets: r.cep 15, ACE 15 mod 8 = 7: the field has wrapped once.
        assert_eq!(r.ace(), 7);
    }

    #[test]
    fn no_option_when_disabled() {
        let mut r = AccEcnReceiver::new(AccEcnOptionSending::Disabled);
        r.on_data(&ecn(false, true), MSS);
        assert_eq!(r.option(0, 0), (None, 0));
        assert_eq!(r.ace(), 6);
    }

    /// `tcp_ecn_option = 1` (`minimum`) with a receiver RTT of 30 ms: the option on the two
    /// ACKs after a CE mark or a change of codepoint (`accecn_opt_demand = 2`, one spent per
    /// option), else once 30 / 3 = 10 ms have passed since the last one (the beacon).
    #[test]
    fn minimum_sends_the_option_on_demand_and_as_a_beacon() {
        const MS: Time = 1_000_000;
        let mut r = AccEcnReceiver::new(AccEcnOptionSending::Minimum);
        r.set_srtt(30 * MS);
        let sent = |r: &mut AccEcnReceiver, at_ms: u64| r.option(at_ms * MS, 0).0.is_some();
        // The first packet changes the codepoint (none -> ECT(1)): demand 2.
        r.on_data(&ecn(true, false), MSS);
        assert!(sent(&mut r, 1)); // demand 2 -> 1
        assert!(sent(&mut r, 2)); // 1 -> 0
                                  // No demand, 1 ms since the last option: (3 - 2) x 3 = 3 < 30.
        r.on_data(&ecn(true, false), MSS);
        assert!(!sent(&mut r, 3));
        // At 12 ms (12 - 2) x 3 = 30 >= 30: the beacon.
        assert!(sent(&mut r, 12));
        assert!(!sent(&mut r, 13));
        // A CE mark: demand 2 again; a second CE (no change of codepoint) sets it to 2 too.
        r.on_data(&ecn(true, true), MSS);
        assert!(sent(&mut r, 14));
        r.on_data(&ecn(true, true), MSS);
        assert!(sent(&mut r, 15));
        assert!(sent(&mut r, 16));
        assert!(!sent(&mut r, 17));
        // Without an RTT sample (srtt 0) every ACK is a beacon, as with `full`.
        let mut r = AccEcnReceiver::new(AccEcnOptionSending::Minimum);
        assert!((0..5).all(|i| sent(&mut r, i)));
    }

    /// A byte counter crossing a multiple of 2^22 (4,194,304 bytes) demands one option: with
    /// 1000-byte packets, the 4,195th ECT(1) packet takes it from 4,194,000 to 4,195,000.
    #[test]
    fn minimum_sends_the_option_before_a_field_could_wrap_unseen() {
        const MS: Time = 1_000_000;
        let mut r = AccEcnReceiver::new(AccEcnOptionSending::Minimum);
        r.set_srtt(Time::MAX / 8);
        r.on_data(&ecn(true, false), MSS);
        assert!(r.option(MS, 0).0.is_some() && r.option(MS, 0).0.is_some());
        for _ in 1..4194 {
            r.on_data(&ecn(true, false), MSS);
        }
        assert!(r.option(2 * MS, 0).0.is_none());
        r.on_data(&ecn(true, false), MSS);
        let o = r.option(3 * MS, 0).0.unwrap();
        assert_eq!(o.e1b, 4_195_000 + E1B_INIT);
        assert!(r.option(4 * MS, 0).0.is_none());
    }

    /// One ACK: ACE, its option, `n` packets of 1000 bytes delivered.
    fn ack(s: &mut AccEcnSender, ace: u32, option: Option<AccEcnOption>, n: u32) -> u32 {
        let d = AckDelivery {
            packets: n,
            bytes: n * MSS,
            progress: n > 0,
        };
        s.on_ack(ace, option, d, true)
    }

    /// The option of a receiver that has seen `e1` ECT(1) and `ce` CE packets of 1000 bytes.
    fn opt(e1: u32, ce: u32) -> Option<AccEcnOption> {
        Some(AccEcnOption {
            fields: 3,
            e1b: e1 * MSS + E1B_INIT,
            ceb: ce * MSS + CEB_INIT,
            e0b: E0B_INIT,
        })
    }

    /// ACE = (5 + CE packets) mod 8; each ACK's delta is (ACE - 5 - delivered_ce) mod 8
    /// while it delivers at most 7 packets.
    #[test]
    fn sender_decodes_ace_deltas_by_hand() {
        let mut s = AccEcnSender::new(MSS, true);
        assert_eq!(ack(&mut s, 5, None, 1), 0);
        assert_eq!(ack(&mut s, 6, None, 1), 1); // 1 CE: ACE 6
        assert_eq!(ack(&mut s, 6, None, 1), 0);
        // 4 more CE (5 in all): ACE (5 + 5) mod 8 = 2; delta (2 - 5 - 1) mod 8 = 4.
        assert_eq!(ack(&mut s, 2, None, 4), 4);
        // 7 packets, all CE (12): ACE 17 mod 8 = 1; delta (1 - 5 - 5) mod 8 = 7.
        assert_eq!(ack(&mut s, 1, None, 7), 7);
        // An ACK that delivers nothing new is not read (`FLAG_FORWARD_PROGRESS`); the next
        // one reads its change: 1 CE more, ACE 2.
        assert_eq!(ack(&mut s, 2, None, 0), 0);
        assert_eq!(ack(&mut s, 2, None, 1), 1);
        assert_eq!(s.delivered_ce(), 13);
    }

    /// 20 ACKs of one packet each: `pkts_acked_ewma` = 1 << 6 = 64 (the first sets it, the
    /// others keep (64 x 64 - 64 + 64) >> 6 = 64), below the 4 << 6 = 256 that marks ACK
    /// compression. With `option`, each of them carries the counters of its ECT(1) packet.
    fn after_per_packet_acks(with_option: bool) -> AccEcnSender {
        let mut s = AccEcnSender::new(MSS, true);
        for i in 1..=20 {
            let o = if with_option { opt(i, 0) } else { None };
            assert_eq!(ack(&mut s, 5, o, 1), 0);
        }
        s
    }

    /// RFC 9768 3.2.2.5.2 and `__tcp_accecn_process`: an ACK that delivers 10 packets (the
    /// ACKs of 9 were lost). ACE alone cannot tell 2 CE marks from 10 (ACE 7 both ways).
    /// After per-packet ACKs (EWMA (64 x 63 + 640) >> 6 = 73, not compressed) and without
    /// the option, the safety rule takes the most the 10 can hold: safe = 10 - ((10 - 2)
    /// mod 8) = 10.
    #[test]
    fn a_wrap_resolved_by_the_safety_rule() {
        // All 10 CE: ACE (5 + 10) mod 8 = 7, delta 2, safe 10: right.
        let mut s = after_per_packet_acks(false);
        assert_eq!(ack(&mut s, 7, None, 10), 10);
        // No CE at all: ACE stays 5, delta 0, safe = 10 - (10 mod 8) = 8 phantom marks: the
        // rule's cost, which the option avoids (below).
        let mut s = after_per_packet_acks(false);
        assert_eq!(ack(&mut s, 5, None, 10), 8);
        // 3 of 10 CE: ACE 0, delta (0 - 5) mod 8 = 3, 10 - 3 = 7 < 8 unmarked: no wrap
        // possible, safe = 10 - 7 = 3.
        let mut s = after_per_packet_acks(false);
        assert_eq!(ack(&mut s, 0, None, 10), 3);
    }

    /// The same ACKs with the option (`tcp_accecn_process_option`): the per-packet ACKs
    /// changed the ECT(1) counter alone (the estimate: ECT(1)), so the option is trusted.
    #[test]
    fn a_wrap_resolved_by_the_option() {
        // No CE: the CE byte counter did not move (d_ceb = 0): delta, 0 marks (not 8).
        let mut s = after_per_packet_acks(true);
        assert_eq!(ack(&mut s, 5, opt(30, 0), 10), 0);
        // All 10 CE: ECEB moved alone by 10,000 > delta x MSS = 2,000: safe, 10.
        let mut s = after_per_packet_acks(true);
        assert_eq!(ack(&mut s, 7, opt(20, 10), 10), 10);
        // Both counters moved (3 CE, 7 ECT(1)): ambiguous, the option is not trusted
        // (`ambiguous_ecn_bytes_incr`), and ACE alone gives 3 (no wrap possible).
        let mut s = after_per_packet_acks(true);
        assert_eq!(ack(&mut s, 0, opt(27, 3), 10), 3);
    }

    /// ACKs that habitually cover 5 packets (EWMA 5 << 6 = 320 > 256): Linux takes ACE as
    /// not wrapped without the option, so 10 CE marks behind ACE 7 count 2; the option's
    /// 10,000 CE bytes give the 10.
    #[test]
    fn compressed_acks_trust_ace_unless_the_option_says_otherwise() {
        for with_option in [false, true] {
            let mut s = AccEcnSender::new(MSS, true);
            for i in 1..=4 {
                let o = if with_option { opt(5 * i, 0) } else { None };
                assert_eq!(ack(&mut s, 5, o, 5), 0);
            }
            let o = if with_option { opt(20, 10) } else { None };
            let want = if with_option { 10 } else { 2 };
            assert_eq!(ack(&mut s, 7, o, 10), want, "option: {with_option}");
        }
    }

    /// 24-bit fields wrap: each change is the 24-bit difference, sign-extended, so steps of
    /// 0x60_0000 bytes (below 2^23) add up across the wrap: the third field is 0x120_0000
    /// mod 2^24 = 0x20_0000, and the counter 0x120_0000.
    #[test]
    fn byte_counters_wrap_at_24_bits() {
        let mut s = AccEcnSender::new(MSS, true);
        for i in 1..=3u32 {
            let o = Some(AccEcnOption {
                fields: 3,
                e1b: (i * 0x60_0000 + E1B_INIT) & COUNTER_MASK,
                ceb: CEB_INIT,
                e0b: E0B_INIT,
            });
            ack(&mut s, 5, o, 1);
        }
        assert_eq!(s.bytes[Field::Ect1 as usize], 0x120_0000);
        assert_eq!(s.estimate, Some(Field::Ect1));
    }
}
