//! Medians and the comparison table of `lockstep-peer`.

use std::time::Duration;

/// The median of `times` (the mean of the middle two for an even count);
/// `None` when empty.
pub fn median(times: &[Duration]) -> Option<Duration> {
    let mut sorted = times.to_vec();
    sorted.sort();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
    }
}

/// One kernel's result: median times of Lockstep and of the peer.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub kernel: String,
    pub elements: u32,
    pub lockstep: Option<Duration>,
    /// `None` when the peer did not run (or gave a wrong result).
    pub peer: Option<Duration>,
    /// The peer's median time from submitting to the fence, without the
    /// copies in and out.
    pub peer_dispatch: Option<Duration>,
}

/// The table's header, in Markdown.
pub fn header(peer: &str) -> String {
    format!(
        "| kernel | elements | Lockstep ms | {peer} ms | {peer} / Lockstep | \
         Lockstep Melem/s | {peer} Melem/s | {peer} dispatch ms |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
}

/// `2^k` for powers of two, else the number.
pub fn elements(n: u32) -> String {
    if n.is_power_of_two() && n >= 1024 {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

fn ms(t: Option<Duration>) -> String {
    t.map_or("–".to_string(), |t| {
        format!("{:.1}", t.as_secs_f64() * 1e3)
    })
}

fn melems(n: u32, t: Option<Duration>) -> String {
    t.map_or("–".to_string(), |t| {
        format!("{:.2}", f64::from(n) / t.as_secs_f64() / 1e6)
    })
}

impl Row {
    /// Peer time over Lockstep time: above 1 when Lockstep is faster.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.peer?.as_secs_f64() / self.lockstep?.as_secs_f64())
    }

    /// The row, in Markdown.
    pub fn render(&self) -> String {
        let ratio = self.ratio().map_or("–".to_string(), |r| format!("{r:.2}"));
        format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            self.kernel,
            elements(self.elements),
            ms(self.lockstep),
            ms(self.peer),
            ratio,
            melems(self.elements, self.lockstep),
            melems(self.elements, self.peer),
            ms(self.peer_dispatch),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[ms(5)]), Some(ms(5)));
        assert_eq!(median(&[ms(9), ms(1), ms(5), ms(7), ms(2)]), Some(ms(5)));
        assert_eq!(median(&[ms(4), ms(1), ms(2), ms(8)]), Some(ms(3)));
    }

    #[test]
    fn rows() {
        let row = Row {
            kernel: "block_scan".to_string(),
            elements: 1 << 24,
            lockstep: Some(ms(2000)),
            peer: Some(ms(500)),
            peer_dispatch: Some(ms(450)),
        };
        assert_eq!(row.ratio(), Some(0.25));
        assert_eq!(
            row.render(),
            "| `block_scan` | 2^24 | 2000.0 | 500.0 | 0.25 | 8.39 | 33.55 | 450.0 |"
        );
        let alone = Row {
            peer: None,
            peer_dispatch: None,
            ..row
        };
        assert_eq!(alone.ratio(), None);
        assert_eq!(
            alone.render(),
            "| `block_scan` | 2^24 | 2000.0 | – | – | 8.39 | – | – |"
        );
        assert_eq!(elements(4096 * 4096), "2^24");
        assert_eq!(elements(3000), "3000");
        assert_eq!(header("lavapipe").lines().count(), 2);
    }
}
