//! Issue 11, item 13: building a large scenario polls the caller's "keep going?" callback, so
//! Ctrl-C stops it (before: the build ran to the end whatever the callback said, and a
//! million-flow scenario ignored Ctrl-C for seconds).

use aqmlab_core::build::build;
use aqmlab_core::sim::WorkBudget;
use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::{Error, RunError, Scenario};

fn dumbbell(flows: u32) -> Scenario {
    Dumbbell {
        duration: "1s",
        rest: &format!("{TCP_TO_RECEIVERS}count = {flows}"),
        ..Default::default()
    }
    .scenario()
}

#[test]
fn a_large_build_stops_when_the_callback_says_so() {
    let big = dumbbell(2 * WorkBudget::EVERY as u32);
    let mut polls = 0;
    let outcome = build(&big, 1, None, &mut || {
        polls += 1;
        false
    });
    assert!(
        matches!(outcome, Err(Error::Run(RunError::Interrupted))),
        "expected an interrupted build, got {:?}",
        outcome.err()
    );
    assert_eq!(
        polls, 1,
        "the build must stop at the first poll that says stop"
    );
}

#[test]
fn a_build_polls_in_proportion_to_its_size_and_completes_when_told_to_go_on() {
    let mut polls = 0;
    build(
        &dumbbell(4 * WorkBudget::EVERY as u32),
        1,
        None,
        &mut || {
            polls += 1;
            true
        },
    )
    .unwrap();
    assert!(
        polls >= 4,
        "a build of 4 budget periods polled {polls} times"
    );

    // A small scenario does not reach one period: the callback is never needed.
    let mut small_polls = 0;
    build(&dumbbell(10), 1, None, &mut || {
        small_polls += 1;
        false
    })
    .unwrap();
    assert_eq!(small_polls, 0);
}

#[test]
fn run_with_reports_an_interrupt_during_the_build_with_fraction_zero() {
    let big = dumbbell(2 * WorkBudget::EVERY as u32);
    let mut seen = vec![];
    let outcome = aqmlab_core::run_with(&big, 1, None, &mut |f| {
        seen.push(f);
        false
    });
    assert!(matches!(outcome, Err(Error::Run(RunError::Interrupted))));
    assert_eq!(seen, vec![0.0]);
}
