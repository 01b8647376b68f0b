//! What the crate's own tests (unit tests, `tests/`, benches) share: the small dumbbell most
//! of them run, written once with the values each test varies as fields. Not part of the
//! simulator's interface.

use crate::Scenario;

/// One TCP flow per sender, from the senders to the receivers: a `[[flows]]` table.
pub const TCP_TO_RECEIVERS: &str = r#"
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
"#;

/// [`TCP_TO_RECEIVERS`] with each flow starting at a uniformly drawn time in the first second.
pub const TCP_IN_FIRST_SECOND: &str = r#"
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
start = { uniform = ["0s", "1s"] }
"#;

/// A test dumbbell as TOML text: `senders` hosts through the link "bottleneck" (the fields of
/// its inline table) and access links (likewise) to as many receivers. `head` is the lines
/// before the topology besides `duration` (warm-up, sampling, traces), `rest` the lines after
/// it (the `[tcp]` table, the flows, the events). [`Default`] is 2 senders through 10 Mb/s,
/// 10 ms (the default queue) and 100 Mb/s, 1 ms access links for 2 s, with
/// [`TCP_TO_RECEIVERS`]: a test sets what it varies and leaves the rest.
#[derive(Debug, Clone, Copy)]
pub struct Dumbbell<'a> {
    pub duration: &'a str,
    pub head: &'a str,
    pub senders: u32,
    pub bottleneck: &'a str,
    pub access: &'a str,
    pub rest: &'a str,
}

impl Default for Dumbbell<'_> {
    fn default() -> Self {
        Dumbbell {
            duration: "2s",
            head: "",
            senders: 2,
            bottleneck: r#"rate = "10Mbps", delay = "10ms""#,
            access: r#"rate = "100Mbps", delay = "1ms""#,
            rest: TCP_TO_RECEIVERS,
        }
    }
}

impl Dumbbell<'_> {
    /// The scenario's TOML text.
    pub fn toml(&self) -> String {
        let Dumbbell {
            duration,
            head,
            senders,
            bottleneck,
            access,
            rest,
        } = self;
        format!(
            "duration = \"{duration}\"\n{head}\n[topology]\nkind = \"dumbbell\"\n\
             senders = {senders}\nbottleneck = {{ {bottleneck} }}\naccess = {{ {access} }}\n{rest}\n"
        )
    }

    /// The scenario; panics if it is not valid.
    pub fn scenario(&self) -> Scenario {
        let toml = self.toml();
        Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}"))
    }
}
