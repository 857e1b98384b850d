//! Global mode's stand-in in a build without the holder (the `tenure/tabs` module): the page
//! refuses a `global` option there, so an engine never has a campaign to run.

use std::rc::{Rc, Weak};

use super::engine::Engine;
use super::wire::{Answer, GlobalConfig};

/// A campaign that does nothing.
pub struct Global;

impl Global {
    /// The stand-in: nothing to campaign for.
    pub fn new(_config: GlobalConfig, _engine: Weak<Engine>) -> Global {
        Global
    }

    /// Nothing to start.
    pub fn start(&self, _engine: &Rc<Engine>, _epoch: u64) {}

    /// Nothing to stop.
    pub fn stop(&self, _logged: bool) {}

    /// Nothing to check.
    pub fn check(&self) {}

    /// No call was made.
    pub fn answer(&self, _answer: Answer) {}
}
