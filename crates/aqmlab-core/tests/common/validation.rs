//! The validation scenarios of docs/validation.md as TOML text, with the values their tests
//! vary as arguments: each validation test runs them at its own length, and
//! `golden_tables.rs` runs them shortened, from the same definition.

use aqmlab_core::testing::Dumbbell;

/// DCTCP with step marking (`dctcp_validation.rs`): `n` DCTCP flows through 1 Gb/s with
/// 100 us of unloaded RTT, marked at `k` packets, `total_s` seconds of which `warmup_s` are
/// warm-up, sampled every `sample_interval` (flows too); `delayed_ack` is a TOML boolean.
pub fn dctcp_step(
    n: usize,
    k: f64,
    (warmup_s, total_s): (f64, f64),
    sample_interval: &str,
    delayed_ack: &str,
) -> String {
    // Unloaded RTT 100 us: propagation 2 x (bottleneck 32.6 us + 2 x 5 us access) = 85.2 us,
    // plus serialization of a data packet at 1 Gb/s (12 us) and on two 10 Gb/s access links
    // (2 x 1.2 us), and of an ACK (0.3 us at 1 Gb/s, 0.03 us at 10 Gb/s, twice).
    format!(
        r#"
        duration = "{total_s}s"
        warmup = "{warmup_s}s"
        sample_interval = "{sample_interval}"
        sample_flows = true
        [topology]
        kind = "dumbbell"
        senders = {n}
        bottleneck = {{ rate = "1Gbps", delay = "32.6us", queue = {{ limit = 1000, aqm = {{ kind = "step_marking", k_packets = {k} }} }} }}
        access = {{ rate = "10Gbps", delay = "5us", queue = {{ limit = 10000 }} }}
        [tcp]
        variant = "sack"
        recovery = "rfc6675"
        congestion_control = "dctcp"
        ecn = true
        packet_size = 1460
        header_size = 40
        window = 10000
        window_init = 10
        cwnd_growth = "packets_acked"
        ssthresh_base = "cwnd"
        delayed_ack = {delayed_ack}
        delayed_ack_timeout = "40ms"
        min_rto = "10ms"
        [[flows]]
        kind = "tcp"
        from = "senders"
        to = "receivers"
        start = {{ uniform = ["0s", "1ms"] }}
        "#
    )
}

/// TCP Prague's path (`prague.rs`): two flows of congestion control `cc` through a 1 ms
/// sojourn step (`step_marking` with `k_sojourn`), 40 Mb/s, 20 ms; 20 s with a 5 s warm-up.
pub fn prague_step(cc: &str) -> String {
    format!(
        r#"
        duration = "20s"
        warmup = "5s"
        [topology]
        kind = "dumbbell"
        senders = 2
        bottleneck = {{ rate = "40Mbps", delay = "9ms", queue = {{ limit = 1000, aqm = {{ kind = "step", k_sojourn = "1ms" }} }} }}
        access = {{ rate = "1Gbps", delay = "0.5ms" }}
        [tcp]
        variant = "sack"
        recovery = "rfc6675"
        congestion_control = "{cc}"
        ecn = true
        packet_size = 1448
        header_size = 52
        window = 10000
        window_init = 10
        delayed_ack = true
        delayed_ack_timeout = "40ms"
        cwnd_growth = "packets_acked"
        ssthresh_base = "cwnd"
        [[flows]]
        kind = "tcp"
        from = "senders"
        to = "receivers"
        "#
    )
}

/// DualPI2's path (`dualpi2.rs`): two flows (their `tcp` overrides in `flow_tcp`, the second
/// starting 0.5 s after the first) through `aqm` (a TOML value), 40 Mb/s, 9 ms bottleneck,
/// 0.5 ms access links, 1000 packets of buffer, RFC 6675 CUBIC; `duration_s` seconds of which
/// `warmup_s` are warm-up, sampled every 10 ms.
pub fn dualpi2_pair(aqm: &str, flow_tcp: [&str; 2], duration_s: u32, warmup_s: f64) -> String {
    let flows: String = flow_tcp
        .iter()
        .enumerate()
        .map(|(i, tcp)| {
            format!(
                r#"
                [[flows]]
                kind = "tcp"
                from = "s{i}"
                to = "d{i}"
                start = "{start}s"
                tcp = {{ {tcp} }}
                "#,
                start = i as f64 * 0.5
            )
        })
        .collect();
    Dumbbell {
        duration: &format!("{duration_s}s"),
        head: &format!("warmup = \"{warmup_s}s\"\nsample_interval = \"10ms\""),
        senders: 2,
        bottleneck: &format!(
            r#"rate = "40Mbps", delay = "9ms", queue = {{ limit = 1000, aqm = {aqm} }}"#
        ),
        access: r#"rate = "1Gbps", delay = "0.5ms""#,
        rest: &format!(
            "[tcp]\nvariant = \"sack\"\nrecovery = \"rfc6675\"\ncongestion_control = \"cubic\"\n\
             window = 10000\n{flows}"
        ),
    }
    .toml()
}

/// BBR's path (`bbr.rs`): 10 Mb/s, 40 ms base RTT (5 + 10 + 5 ms each way), 1460 + 40-byte
/// packets, `buffer` packets under `aqm`; one flow per entry of `flows` (its congestion
/// control), 100 ms apart; `duration_s` seconds of which `warmup_s` are warm-up, sampled every
/// 10 ms.
pub fn bbr_path(
    flows: &[&str],
    buffer: u32,
    (duration_s, warmup_s): (u32, u32),
    aqm: &str,
) -> String {
    let mut rest =
        String::from("[tcp]\nprofile = \"linux\"\npacket_size = 1460\nheader_size = 40\n");
    for (i, cc) in flows.iter().enumerate() {
        rest.push_str(&format!(
            r#"
            [[flows]]
            kind = "tcp"
            from = "s{i}"
            to = "d{i}"
            start = "{start}ms"
            tcp = {{ congestion_control = "{cc}" }}
            "#,
            start = i * 100,
        ));
    }
    Dumbbell {
        duration: &format!("{duration_s}s"),
        head: &format!("warmup = \"{warmup_s}s\"\nsample_interval = \"10ms\""),
        senders: flows.len() as u32,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "10ms", queue = {{ limit = {buffer}, aqm = "{aqm}" }}"#
        ),
        access: r#"rate = "1Gbps", delay = "5ms""#,
        rest: &rest,
    }
    .toml()
}

/// FQ-PIE's and COBALT's path (`fq_pie_cobalt.rs`): `senders` hosts on a 10 Mb/s, 20 ms
/// dumbbell under `aqm` (a TOML value) with 1000 packets of buffer, SACK TCP from the senders
/// `tcp` (a TOML list) to their receivers and a CBR flow of `cbr_rate` from the last sender
/// from 1 s; 30 s with a 10 s warm-up.
pub fn unresponsive(aqm: &str, senders: u32, tcp: &str, cbr_rate: &str) -> String {
    Dumbbell {
        duration: "30s",
        head: r#"warmup = "10s""#,
        senders,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "20ms", queue = {{ limit = 1000, aqm = {aqm} }}"#
        ),
        access: r#"rate = "100Mbps", delay = "1ms""#,
        rest: &format!(
            r#"
        [tcp]
        variant = "sack"
        window = 1000

        [[flows]]
        kind = "tcp"
        from = {tcp}
        to = {to}
        start = {{ uniform = ["0s", "1s"] }}

        [[flows]]
        kind = "cbr"
        from = "s{last}"
        to = "d{last}"
        rate = "{cbr_rate}"
        packet_size = 1000
        start = "1s"
        "#,
            to = tcp.replace('s', "d"),
            last = senders - 1,
        ),
    }
    .toml()
}

/// The `linux` profile's congestion control (growth by packets acked, reductions from cwnd,
/// Linux's CUBIC readings and constants) for [`cubic_response`]'s `extra`, with the RFC 6675
/// sender it needs and neither RACK-TLP, timestamps nor delayed ACKs: a labelled row of
/// docs/validation.md, not the RFC's CUBIC.
pub const LINUX_CUBIC: &str = r#"
        recovery = "rfc6675"
        cwnd_growth = "packets_acked"
        ssthresh_base = "cwnd"
        cubic = { c = 0.400390625, beta = 0.7001953125, target_rtt = "min_rtt", reno_friendly = "linux", growth_without_w_max = "linux", state_on_rto = "reset" }
"#;

/// CUBIC's response function's path (`cubic_response.rs`): one SACK CUBIC flow over 100 ms
/// with Bernoulli loss `p` on the data direction, `duration_s` seconds of which the first
/// fifth is warm-up, sampled every 10 ms; `extra` is more lines of the `[tcp]` table.
pub fn cubic_response(p: f64, duration_s: f64, extra: &str) -> String {
    format!(
        r#"
        duration = "{duration_s}s"
        warmup = "{warm}s"
        sample_interval = "10ms"
        [topology]
        kind = "dumbbell"
        senders = 1
        bottleneck = {{ rate = "1Gbps", delay = "49ms", loss = {p}, queue = {{ limit = 100000 }} }}
        access = {{ rate = "10Gbps", delay = "0.5ms", queue = {{ limit = 100000 }} }}
        [tcp]
        variant = "sack"
        congestion_control = "cubic"
        window = 1000000
        ssthresh_init = 10
        {extra}
        [[flows]]
        kind = "tcp"
        from = "senders"
        to = "receivers"
        "#,
        warm = duration_s / 5.0,
    )
}
