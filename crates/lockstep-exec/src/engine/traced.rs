//! Checked mode's hooks for traced waves (see [`crate::trace`]).

use super::{Context, Wave};
use crate::trace::WaveView;

impl Wave {
    fn view(&self) -> WaveView<'_> {
        WaveView {
            regs: &self.regs,
            undefined: &self.undefined,
            cur: self.cur,
            launch: self.launch,
            width: self.width,
        }
    }

    /// Before the instruction at `pc` of a traced wave runs.
    pub(super) fn trace_before(&mut self, ctx: &Context, pc: usize) {
        let (Some(sink), Some(mut t)) = (ctx.trace, self.trace.take()) else {
            return;
        };
        t.before(sink, ctx.program, pc, &self.view());
        self.trace = Some(t);
    }

    /// When a traced wave stops: at a barrier, an error or its end.
    pub(super) fn trace_pause(&mut self, ctx: &Context) {
        let (Some(sink), Some(mut t)) = (ctx.trace, self.trace.take()) else {
            return;
        };
        t.pause(sink, ctx.program, &self.view());
        self.trace = Some(t);
    }
}
