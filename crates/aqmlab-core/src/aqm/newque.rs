//! NOT YET IMPLEMENTED (issue 3): this module is a placeholder so that the registry lists the
//! algorithm; building it is an error until it is written.

use super::params::AqmParams;
use super::registry::ParamDoc;
use super::{Aqm, QueueEnv};
use crate::scenario::ScenarioError;

pub const PARAMS: &[ParamDoc] = &[];

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    Err(p.error("kind", "newque is not implemented yet"))
}
