//! The emulated device's wave sizes, and which one a shader runs at.
//!
//! A device supports the powers of two in `min..=max` and prefers one of
//! them. A shader without `[WaveSize]` runs at the device's preferred size;
//! `[WaveSize(n)]` runs at `n` or not at all; `[WaveSize(min, max[,
//! preferred])]` takes the shader's preferred size if the device supports
//! it, else the device's preferred size if it is in range, else the
//! supported size in range that the preference picks.

use std::fmt;

use lockstep_ir::WaveSizeRange;

use crate::{ExecError, MAX_WAVE_SIZE, MIN_WAVE_SIZE, validate_wave_size};

/// Which supported size to take when neither the shader's nor the device's
/// preferred size can be used (the proposal's PREFER_SMALL/PREFER_LARGE
/// hints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WavePreference {
    /// The supported size in range nearest the device's preferred size
    /// (the smaller one on a tie).
    #[default]
    Nearest,
    /// The smallest supported size in range (`--prefer-wave-size small`).
    Small,
    /// The largest supported size in range (`--prefer-wave-size large`).
    Large,
}

impl WavePreference {
    /// The preference as `--prefer-wave-size` spells it.
    pub fn name(self) -> &'static str {
        match self {
            WavePreference::Nearest => "nearest",
            WavePreference::Small => "small",
            WavePreference::Large => "large",
        }
    }
}

/// The wave sizes of the emulated device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    /// The size a shader without `[WaveSize]` runs at (`--wave-size`).
    pub preferred: u32,
    /// The supported sizes: powers of two in `min..=max` (`--wave-sizes`).
    pub min: u32,
    /// The largest supported size.
    pub max: u32,
    /// Which size to take when neither preferred size can be used (`--prefer-wave-size`).
    pub preference: WavePreference,
}

impl Default for Device {
    fn default() -> Device {
        Device {
            preferred: 32,
            min: MIN_WAVE_SIZE,
            max: MAX_WAVE_SIZE,
            preference: WavePreference::Nearest,
        }
    }
}

impl Device {
    /// A device that supports exactly one wave size.
    pub fn fixed(wave_size: u32) -> Device {
        Device {
            preferred: wave_size,
            min: wave_size,
            max: wave_size,
            preference: WavePreference::Nearest,
        }
    }

    /// Checks the device description itself.
    pub fn validate(&self) -> Result<(), ExecError> {
        validate_wave_size(self.preferred)?;
        validate_wave_size(self.min)?;
        validate_wave_size(self.max)?;
        if self.min > self.max {
            return Err(ExecError::new(
                format!(
                    "the device's wave size range {}..{} is empty",
                    self.min, self.max
                ),
                None,
            ));
        }
        if !(self.min..=self.max).contains(&self.preferred) {
            return Err(ExecError::new(
                format!(
                    "the device's preferred wave size {} is outside its range {}..{}",
                    self.preferred, self.min, self.max
                ),
                None,
            ));
        }
        Ok(())
    }

    /// Whether the device runs waves of `size` lanes: a power of two in `min..=max`.
    pub fn supports(&self, size: u32) -> bool {
        size.is_power_of_two() && (self.min..=self.max).contains(&size)
    }

    /// The supported sizes, smallest first.
    pub fn sizes(&self) -> impl Iterator<Item = u32> + use<> {
        let (min, max) = (self.min, self.max);
        (2..=7)
            .map(|k| 1u32 << k)
            .filter(move |s| (min..=max).contains(s))
    }
}

/// The wave size a dispatch uses, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveSizeChoice {
    /// Lanes per wave.
    pub size: u32,
    /// Why this size: the rule of the selection that picked it.
    pub reason: String,
}

impl fmt::Display for WaveSizeChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.size, self.reason)
    }
}

fn describe(range: &WaveSizeRange) -> String {
    match range.preferred {
        Some(p) => format!("[WaveSize({}, {}, {p})]", range.min, range.max),
        None if range.min == range.max => format!("[WaveSize({})]", range.min),
        None => format!("[WaveSize({}, {})]", range.min, range.max),
    }
}

/// Picks the wave size for a shader with attribute `range` on `device`.
pub fn select_wave_size(
    range: Option<WaveSizeRange>,
    device: &Device,
) -> Result<WaveSizeChoice, ExecError> {
    device.validate()?;
    let choice = |size: u32, reason: String| Ok(WaveSizeChoice { size, reason });
    let Some(range) = range else {
        return choice(
            device.preferred,
            "the device's preferred wave size; the shader has no [WaveSize]".to_string(),
        );
    };
    let attr = describe(&range);
    if range.min == range.max && range.preferred.is_none() && device.supports(range.min) {
        return choice(range.min, format!("required by {attr}"));
    }
    if let Some(p) = range.preferred
        && device.supports(p)
    {
        return choice(p, format!("the preferred size of {attr}"));
    }
    if (range.min..=range.max).contains(&device.preferred) {
        return choice(
            device.preferred,
            format!("the device's preferred wave size, within {attr}"),
        );
    }
    let candidates: Vec<u32> = device
        .sizes()
        .filter(|s| (range.min..=range.max).contains(s))
        .collect();
    let picked = match device.preference {
        WavePreference::Small => candidates.first().copied(),
        WavePreference::Large => candidates.last().copied(),
        WavePreference::Nearest => candidates
            .iter()
            .copied()
            .min_by_key(|&s| (s.abs_diff(device.preferred), s)),
    };
    match picked {
        Some(size) => choice(
            size,
            format!(
                "the {} supported size within {attr} (the device prefers {}; --prefer-wave-size {})",
                match device.preference {
                    WavePreference::Small => "smallest",
                    WavePreference::Large => "largest",
                    WavePreference::Nearest => "nearest",
                },
                device.preferred,
                device.preference.name()
            ),
        ),
        None => Err(ExecError::new(
            format!(
                "the shader requires {attr}, but the device supports wave sizes {}..{} only",
                device.min, device.max
            ),
            None,
        )
        .with_note("choose the device's wave sizes with --wave-size and --wave-sizes MIN..MAX")),
    }
}
