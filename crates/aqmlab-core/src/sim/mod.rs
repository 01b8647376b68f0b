//! The discrete-event kernel: integer time, the event queue, per-component random streams and
//! lazily cancelled timers. Nothing here knows about packets or networks.

mod event;
pub mod event_queue;
mod huge_pages;
mod quaternary_heap;
mod radix_heap;
pub mod rng;
pub mod time;
pub mod timer;
pub mod work_budget;

pub use event_queue::{Event, EventKind, EventQueue};
pub use huge_pages::advise_huge_pages;
pub use rng::{RngStream, StreamKind};
pub use time::{RateClock, Time, NANOS_PER_SEC};
pub use timer::LazyTimer;
pub use work_budget::{PollPacer, Stopped, WorkBudget};

/// Receives a component's named internal state variables (an AQM's, a congestion
/// controller's) for the sampled time series.
pub type StateSink<'a> = dyn FnMut(&str, f64) + 'a;
