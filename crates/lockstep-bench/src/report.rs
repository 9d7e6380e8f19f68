//! Medians, the comparison table of `lockstep-peer` and the scaling table
//! of `lockstep-scaling`.

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
    /// The kernel's name (its file in `benches/kernels/`, without `.hlsl`).
    pub kernel: String,
    /// Elements (threads, or texels) the dispatch processes.
    pub elements: u32,
    /// Lockstep's median time; `None` when no run was timed.
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
        "| kernel | elements | Lockstep ms | {peer} dispatch ms | {peer} dispatch / Lockstep | \
         {peer} ms with copies | Lockstep Melem/s | {peer} dispatch Melem/s |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
}

/// The geometric mean of the rows' ratios, with the lowest and the
/// highest, as a table row; `None` where no row has a ratio.
pub fn geomean_row(rows: &[Row]) -> Option<String> {
    let ratios: Vec<f64> = rows.iter().filter_map(Row::ratio).collect();
    if ratios.is_empty() {
        return None;
    }
    let mean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().copied().fold(0.0, f64::max);
    Some(format!(
        "| geometric mean | | | | {mean:.2} ({lo:.2}–{hi:.2}) | | | |"
    ))
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
    /// The peer's dispatch time over Lockstep's whole run: above 1 when
    /// Lockstep is faster.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.peer_dispatch?.as_secs_f64() / self.lockstep?.as_secs_f64())
    }

    /// The row, in Markdown.
    pub fn render(&self) -> String {
        let ratio = self.ratio().map_or("–".to_string(), |r| format!("{r:.2}"));
        format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            self.kernel,
            elements(self.elements),
            ms(self.lockstep),
            ms(self.peer_dispatch),
            ratio,
            ms(self.peer),
            melems(self.elements, self.lockstep),
            melems(self.elements, self.peer_dispatch),
        )
    }
}

/// How one workload scaled from one thread to all cores: the times of the
/// two, taken alternately, one pair per round.
#[derive(Clone, Debug, PartialEq)]
pub struct Scaling {
    /// The kernel's name, or the reference loop's.
    pub name: String,
    /// The wave size; `None` for the machine's reference loops.
    pub wave_size: Option<u32>,
    /// Elements each run processes.
    pub elements: u32,
    /// One thread's time in each round.
    pub one: Vec<Duration>,
    /// All cores' time in each round.
    pub all: Vec<Duration>,
    /// The machine's ALU throughput loop, timed in the same rounds right
    /// after the kernel (one thread, all cores); empty for the reference
    /// loops themselves.
    pub alongside: (Vec<Duration>, Vec<Duration>),
    /// The threads of the all-cores runs.
    pub threads: usize,
    /// The CPU time the process spent in each round's one-thread and
    /// all-cores run (every thread's, time the host took from the virtual
    /// machine's CPUs not counted); empty where the system does not tell.
    pub cpu: (Vec<Duration>, Vec<Duration>),
}

impl Scaling {
    /// The speed-up: one thread's median time over all cores' median time.
    pub fn speedup(&self) -> Option<f64> {
        speedup(&self.one, &self.all)
    }

    /// The ALU throughput loop's speed-up in the same rounds: what the
    /// machine gave code that keeps a core's execution units busy while
    /// the kernel ran.
    pub fn alongside(&self) -> Option<f64> {
        speedup(&self.alongside.0, &self.alongside.1)
    }

    /// The fastest one-thread time over the fastest all-cores time: the
    /// speed-up when neither side met interference from the machine
    /// (interference on a shared machine only ever adds time).
    pub fn best(&self) -> Option<f64> {
        let fastest = |times: &[Duration]| times.iter().min().copied();
        Some(fastest(&self.one)?.as_secs_f64() / fastest(&self.all)?.as_secs_f64())
    }

    /// The share of the cores' time the all-cores runs kept busy: their CPU
    /// time over the threads times their wall time, all rounds together.
    /// Below 1, cores waited (for work, for each other, for the kernel).
    pub fn busy(&self) -> Option<f64> {
        let cpu = total(&self.cpu.1)?;
        let wall = total(&self.all)?;
        Some(cpu / (wall * self.threads as f64))
    }

    /// The all-cores runs' CPU time over the one-thread runs', all rounds
    /// together: how much more CPU time the same work took when every core
    /// ran. Above 1, each core did the work more slowly than one core
    /// alone, whether held up by the others (cache lines that both write,
    /// page faults) or by the machine (cores that share their execution
    /// units or memory with other work). The speed-up of the totals is
    /// exactly threads × [`Scaling::busy`] over the one-thread runs' busy
    /// share, over this.
    pub fn cpu_growth(&self) -> Option<f64> {
        Some(total(&self.cpu.1)? / total(&self.cpu.0)?)
    }

    /// The lowest and the highest speed-up of a single round.
    pub fn range(&self) -> Option<(f64, f64)> {
        let ratios = self
            .one
            .iter()
            .zip(&self.all)
            .map(|(one, all)| one.as_secs_f64() / all.as_secs_f64());
        ratios.fold(None, |range, r| match range {
            None => Some((r, r)),
            Some((lo, hi)) => Some((f64::min(lo, r), f64::max(hi, r))),
        })
    }

    /// The row, in Markdown.
    pub fn render(&self) -> String {
        let (one, all) = (median(&self.one), median(&self.all));
        let name = match self.wave_size {
            Some(_) => format!("`{}`", self.name),
            None => self.name.clone(),
        };
        let ratio = |r: Option<f64>| r.map_or("–".to_string(), |r| format!("{r:.2}"));
        format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.wave_size.map_or("–".to_string(), |w| w.to_string()),
            elements(self.elements),
            ms(one),
            ms(all),
            ratio(self.speedup()),
            self.range()
                .map_or("–".to_string(), |(lo, hi)| format!("{lo:.2}–{hi:.2}")),
            ratio(self.best()),
            ratio(self.busy()),
            ratio(self.cpu_growth()),
            ratio(self.alongside()),
            melems(self.elements, one),
            melems(self.elements, all),
        )
    }
}

/// The sum of `times` in seconds; `None` when empty.
fn total(times: &[Duration]) -> Option<f64> {
    (!times.is_empty()).then(|| times.iter().sum::<Duration>().as_secs_f64())
}

/// One thread's median time over all cores' median time.
fn speedup(one: &[Duration], all: &[Duration]) -> Option<f64> {
    Some(median(one)?.as_secs_f64() / median(all)?.as_secs_f64())
}

/// The scaling table's header, in Markdown.
pub fn scaling_header() -> String {
    "| workload | wave | elements | 1 thread ms | all cores ms | speed-up | range of rounds | \
     fastest over fastest | cores busy | CPU time, all over one | ALU throughput alongside | \
     1 thread Melem/s | all cores Melem/s |\n\
     | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        .to_string()
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
        assert_eq!(row.ratio(), Some(0.225));
        assert_eq!(
            row.render(),
            "| `block_scan` | 2^24 | 2000.0 | 450.0 | 0.23 | 500.0 | 8.39 | 37.28 |"
        );
        let twice = Row {
            lockstep: Some(ms(225)),
            ..row.clone()
        };
        assert_eq!(
            geomean_row(&[row.clone(), twice]).as_deref(),
            Some("| geometric mean | | | | 0.67 (0.23–2.00) | | | |")
        );
        let alone = Row {
            peer: None,
            peer_dispatch: None,
            ..row
        };
        assert_eq!(alone.ratio(), None);
        assert_eq!(geomean_row(std::slice::from_ref(&alone)), None);
        assert_eq!(
            alone.render(),
            "| `block_scan` | 2^24 | 2000.0 | – | – | – | 8.39 | – |"
        );
        assert_eq!(elements(4096 * 4096), "2^24");
        assert_eq!(elements(3000), "3000");
        assert_eq!(header("lavapipe").lines().count(), 2);
    }
    #[test]
    fn scaling_rows() {
        let row = Scaling {
            name: "wave_reduce".to_string(),
            wave_size: Some(8),
            elements: 1 << 24,
            one: vec![ms(200), ms(180), ms(220)],
            all: vec![ms(100), ms(120), ms(110)],
            alongside: (vec![ms(60), ms(66), ms(70)], vec![ms(40), ms(30), ms(33)]),
            threads: 2,
            cpu: (
                vec![ms(200), ms(170), ms(230)],
                vec![ms(190), ms(230), ms(210)],
            ),
        };
        // Medians 200 and 110; rounds 2.00, 1.50 and 2.00. Alongside:
        // medians 66 and 33.
        assert!((row.speedup().unwrap() - 200.0 / 110.0).abs() < 1e-12);
        assert_eq!(row.range(), Some((1.5, 2.0)));
        assert!((row.alongside().unwrap() - 2.0).abs() < 1e-12);
        // Fastest 180 and 100.
        assert!((row.best().unwrap() - 1.8).abs() < 1e-12);
        // CPU: 630 ms on two threads over 330 ms of wall time, 600 ms on
        // one thread over 600 ms.
        assert!((row.busy().unwrap() - 630.0 / 660.0).abs() < 1e-12);
        assert!((row.cpu_growth().unwrap() - 1.05).abs() < 1e-12);
        // The totals' speed-up, 600 / 330, is two threads times the busy
        // shares' ratio over the growth.
        let one_busy = 600.0 / 600.0;
        let totals = 600.0 / 330.0;
        let parts = 2.0 * row.busy().unwrap() / one_busy / row.cpu_growth().unwrap();
        assert!((totals - parts).abs() < 1e-12);
        let columns = |line: &str| line.matches('|').count();
        let header = scaling_header();
        assert_eq!(header.lines().map(columns).collect::<Vec<_>>(), [14, 14]);
        assert_eq!(columns(&row.render()), 14);
        assert_eq!(
            row.render(),
            "| `wave_reduce` | 8 | 2^24 | 200.0 | 110.0 | 1.82 | 1.50–2.00 | 1.80 | 0.95 | 1.05 | 2.00 | 83.89 | 152.52 |"
        );
        let reference = Scaling {
            name: "memory stream".to_string(),
            wave_size: None,
            one: vec![],
            all: vec![],
            alongside: (vec![], vec![]),
            cpu: (vec![], vec![]),
            ..row
        };
        assert_eq!(reference.speedup(), None);
        assert_eq!(reference.range(), None);
        assert_eq!(reference.alongside(), None);
        assert_eq!(reference.best(), None);
        assert_eq!(reference.busy(), None);
        assert_eq!(reference.cpu_growth(), None);
        assert_eq!(
            reference.render(),
            "| memory stream | – | 2^24 | – | – | – | – | – | – | – | – | – | – |"
        );
    }
}
