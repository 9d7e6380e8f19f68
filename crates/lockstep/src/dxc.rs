//! DXC's command line: the compile flags Lockstep honours, ignores or
//! rejects, read one way for the `lockstep` commands and for the
//! `%dxc_target` lines of offload tests.

use crate::CompileOptions;

/// How a flag takes its argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arity {
    /// No argument.
    None,
    /// Joined (`-Tcs_6_5`) or the next word (`-T cs_6_5`).
    Value,
}

/// One documented flag: its spelling, argument, and what it does.
pub struct FlagHelp {
    /// The flag as written, e.g. `-T`.
    pub flag: &'static str,
    /// The name of its argument in help texts, e.g. `PROFILE`; `None` for a flag without one.
    pub value: Option<&'static str>,
    /// What the flag does, in a few words.
    pub help: &'static str,
}

/// The flags Lockstep honours, for help texts.
pub const HONOURED: &[FlagHelp] = &[
    FlagHelp {
        flag: "-T",
        value: Some("PROFILE"),
        help: "shader profile, cs_6_0 to cs_6_10 (default: the highest)",
    },
    FlagHelp {
        flag: "-E",
        value: Some("NAME"),
        help: "entry point (default: the pipeline's Entry, else main)",
    },
    FlagHelp {
        flag: "-D",
        value: Some("NAME[=VALUE]"),
        help: "define a macro",
    },
    FlagHelp {
        flag: "-I",
        value: Some("DIR"),
        help: "add a directory to the #include search path",
    },
    FlagHelp {
        flag: "-enable-16bit-types",
        value: None,
        help: "half is binary16 and 16-bit integers exist (shader model 6.2 and later); also -fnative-half-type",
    },
    FlagHelp {
        flag: "-HV",
        value: Some("VERSION"),
        help: "HLSL version: 2021 (the default) or 202x",
    },
    FlagHelp {
        flag: "-Zpr",
        value: None,
        help: "matrices without row_major/column_major are row-major (-Zpc: column-major, the default)",
    },
    FlagHelp {
        flag: "-WX",
        value: None,
        help: "treat warnings as errors",
    },
    FlagHelp {
        flag: "-denorm",
        value: Some("MODE"),
        help: "preserve or any (Lockstep always preserves denormals)",
    },
];

/// Flags without effect on what a shader computes under Lockstep's
/// semantics: debug information, stripping, validation, optimization
/// levels, warning options, IEEE strictness (Lockstep is always strict),
/// and SPIR-V code generation.
const IGNORED: [&str; 22] = [
    "-Zi",
    "-Zs",
    "-Zss",
    "-Zsb",
    "-Qembed_debug",
    "-Qstrip_debug",
    "-Qstrip_reflect",
    "-Qstrip_rootsignature",
    "-Qstrip_priv",
    "-Od",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "-Vd",
    "-Gis",
    "-spirv",
    "-no-warnings",
    "-Wall",
    "-all-resources-bound",
    "-res-may-alias",
    "-nologo",
];

fn ignored_flag(flag: &str) -> bool {
    IGNORED.contains(&flag)
        || flag.starts_with("-fspv-")
        || flag.starts_with("-fvk-")
        // Warning options (`-Wconversion`, `-Wno-…`) change no result;
        // `-WX` and `-Werror` are read apart.
        || (flag.starts_with("-W") && flag.len() > 2 && !matches!(flag, "-WX" | "-Werror"))
}

/// The words an ignored flag takes after it: the Vulkan binding flags
/// take theirs separately (`-fvk-u-shift 10 0`, `-fvk-bind-register u0 0
/// 1 0`).
fn ignored_arguments(flag: &str) -> usize {
    match flag {
        "-fvk-b-shift"
        | "-fvk-t-shift"
        | "-fvk-s-shift"
        | "-fvk-u-shift"
        | "-fvk-bind-globals"
        | "-fvk-bind-counter-heap"
        | "-fvk-bind-resource-heap"
        | "-fvk-bind-sampler-heap" => 2,
        "-fvk-bind-register" => 4,
        _ => 0,
    }
}

/// Output-file flags: their argument (joined or separate) names a file
/// Lockstep does not write.
const OUTPUT_FLAGS: [&str; 8] = ["-Fo", "-Fc", "-Fd", "-Fe", "-Fh", "-Fre", "-Frs", "-Fsh"];

/// Flags whose argument may be joined to them.
const PREFIX_FLAGS: [&str; 4] = ["-T", "-E", "-D", "-I"];

/// The arity of a DXC flag that Lockstep knows, `None` for other words
/// (which the caller's own parser may take).
fn arity(arg: &str) -> Option<Arity> {
    match arg {
        "-enable-16bit-types" | "-fnative-half-type" | "-WX" | "-Werror" | "-Zpr" | "-Zpc" => {
            Some(Arity::None)
        }
        "-HV" | "-denorm" => Some(Arity::Value),
        _ if ignored_flag(arg) => Some(Arity::None),
        _ if OUTPUT_FLAGS
            .iter()
            .chain(&PREFIX_FLAGS)
            .any(|f| arg.starts_with(f)) =>
        {
            Some(Arity::Value)
        }
        _ => None,
    }
}

/// Splits a command line into DXC's flags (with their arguments) and the
/// other words, each list in order. Words after `--` are never flags.
pub fn split_dxc_flags(args: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut dxc, mut rest) = (Vec::new(), Vec::new());
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            rest.push(arg.clone());
            rest.extend(iter.cloned());
            break;
        }
        match arity(arg) {
            Some(arity) => {
                dxc.push(arg.clone());
                let separate = OUTPUT_FLAGS
                    .iter()
                    .chain(&PREFIX_FLAGS)
                    .chain(&["-HV", "-denorm"])
                    .any(|f| arg == f);
                if arity == Arity::Value && separate {
                    dxc.extend(iter.next().cloned());
                }
                for _ in 0..ignored_arguments(arg) {
                    dxc.extend(iter.next().cloned());
                }
            }
            None => rest.push(arg.clone()),
        }
    }
    (dxc, rest)
}

/// The HLSL language version (`-HV`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HlslVersion {
    /// HLSL 2021 (`-HV 2021`), the default.
    #[default]
    V2021,
    /// Compiled with 2021's rules: the 202x changes that compute shaders
    /// meet are accepted either way.
    V202x,
}

/// What a DXC command line says.
#[derive(Clone, Debug, Default)]
pub struct DxcFlags {
    /// `-T`, `-D`, `-I`, `-enable-16bit-types`; the entry point is `main`
    /// unless `-E` names one.
    pub options: CompileOptions,
    /// `-E`, when given.
    pub entry: Option<String>,
    /// `-T`, when given.
    pub profile: Option<String>,
    /// `-HV`: the language version; 2021 unless given.
    pub hlsl_version: HlslVersion,
    /// Words that are not flags: source files.
    pub sources: Vec<String>,
    /// `-Fo`: the object file.
    pub output: Option<String>,
    /// `-WX`: warnings fail the compile.
    pub warnings_as_errors: bool,
    /// Flags taken and ignored, having no effect on what the shader computes.
    pub ignored: Vec<String>,
}

/// Why a DXC command line cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DxcError {
    /// A malformed or unsupported flag.
    Invalid(String),
    /// A profile of a stage Lockstep does not run (`gs_6_0`, `lib_6_3`):
    /// it runs compute, vertex and pixel shaders.
    /// compute shaders.
    OtherStage(String),
}

impl std::fmt::Display for DxcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DxcError::Invalid(message) => f.write_str(message),
            DxcError::OtherStage(profile) => write!(
                f,
                "-T {profile} is a stage Lockstep does not run: it runs compute (cs_6_x), vertex (vs_6_x) and pixel (ps_6_x) shaders"
            ),
        }
    }
}

impl std::error::Error for DxcError {}

/// Reads DXC flags (and source-file words):
///
/// - honoured: the [`HONOURED`] flags; `-T`, `-E`, `-D`, `-I` and `-Fo`
///   also take their argument joined (`-Tcs_6_5`);
/// - ignored: `-Fo FILE` and the other output files, and flags without
///   effect on what a shader computes here (`-Zi`, `-Qembed_debug`, `-O3`,
///   `-spirv`, `-fspv-*`, `-fvk-*`, …);
/// - errors: any other flag (Lockstep cannot tell whether it changes what
///   the shader computes), `-HV` other than 2021 and 202x,
///   `-denorm ftz`, a profile Lockstep does not know, and
///   `-enable-16bit-types` below shader model 6.2, as in DXC.
pub fn parse_dxc_flags(args: &[String]) -> Result<DxcFlags, DxcError> {
    let fail = |message: String| DxcError::Invalid(message);
    let mut flags = DxcFlags::default();
    let mut iter = args.iter();
    // The argument of `flag`: joined (`-Tcs_6_5`) or the next word.
    let value = |arg: &str, flag: &str, iter: &mut std::slice::Iter<String>| {
        let joined = &arg[flag.len()..];
        if joined.is_empty() {
            iter.next()
                .cloned()
                .ok_or_else(|| fail(format!("{flag} needs an argument")))
        } else {
            Ok(joined.to_string())
        }
    };
    while let Some(arg) = iter.next() {
        let arg = arg.as_str();
        if !arg.starts_with('-') {
            flags.sources.push(arg.to_string());
            continue;
        }
        if let Some(flag) = OUTPUT_FLAGS.iter().find(|f| arg.starts_with(**f)) {
            let file = value(arg, flag, &mut iter)?;
            if *flag == "-Fo" {
                flags.output = Some(file.clone());
            }
            flags.ignored.push(format!("{flag} {file}"));
            continue;
        }
        match arg {
            "-enable-16bit-types" | "-fnative-half-type" => {
                flags.options.enable_16bit_types = true;
            }
            "-WX" | "-Werror" => flags.warnings_as_errors = true,
            "-HV" => {
                flags.hlsl_version = match value(arg, "-HV", &mut iter)?.as_str() {
                    "2021" => HlslVersion::V2021,
                    "202x" | "202y" => HlslVersion::V202x,
                    version => {
                        return Err(fail(format!(
                            "-HV {version}: Lockstep compiles HLSL 2021 and 202x"
                        )));
                    }
                };
            }
            "-denorm" => match value(arg, "-denorm", &mut iter)?.as_str() {
                "preserve" | "any" => {}
                mode => {
                    return Err(fail(format!(
                        "-denorm {mode} is not supported: Lockstep preserves denormals"
                    )));
                }
            },
            "-Zpr" => flags.options.row_major_default = true,
            "-Zpc" => flags.options.row_major_default = false,
            _ if arg.starts_with("-T") => {
                let profile = value(arg, "-T", &mut iter)?;
                let stage = profile.split('_').next().unwrap_or("");
                if !matches!(stage, "cs" | "vs" | "ps") && profile.matches('_').count() == 2 {
                    return Err(DxcError::OtherStage(profile));
                }
                let (stage, model) = crate::parse_stage_profile(&profile).map_err(fail)?;
                flags.options.shader_model = model;
                flags.options.stage = stage;
                flags.profile = Some(profile);
            }
            _ if arg.starts_with("-E") => flags.entry = Some(value(arg, "-E", &mut iter)?),
            _ if arg.starts_with("-D") => {
                let d = value(arg, "-D", &mut iter)?;
                let (name, val) = d.split_once('=').unwrap_or((&d, "1"));
                if name.is_empty() {
                    return Err(fail(format!("invalid macro definition '-D {d}'")));
                }
                flags
                    .options
                    .defines
                    .push((name.to_string(), val.to_string()));
            }
            _ if arg.starts_with("-I") => {
                let dir = value(arg, "-I", &mut iter)?;
                flags.options.include_dirs.push(dir);
            }
            _ if ignored_flag(arg) => {
                let mut words = vec![arg.to_string()];
                for _ in 0..ignored_arguments(arg) {
                    let word = iter.next().ok_or_else(|| {
                        fail(format!("{arg} needs {} arguments", ignored_arguments(arg)))
                    })?;
                    words.push(word.clone());
                }
                flags.ignored.push(words.join(" "));
            }
            _ => {
                return Err(fail(format!(
                    "unsupported flag '{arg}': Lockstep cannot tell whether it changes what the shader computes"
                )));
            }
        }
    }
    if flags.options.enable_16bit_types && flags.options.shader_model < (6, 2) {
        let (major, minor) = flags.options.shader_model;
        return Err(fail(format!(
            "-enable-16bit-types needs shader model 6.2 or later, but the profile is {}",
            flags
                .profile
                .clone()
                .unwrap_or_else(|| format!("cs_{major}_{minor}"))
        )));
    }
    if let Some(entry) = &flags.entry {
        flags.options.entry = entry.clone();
    }
    Ok(flags)
}

/// The help text of the DXC flags, in DXC's single-dash spelling.
pub fn flags_help() -> String {
    let mut out = String::from("Compile flags (DXC's spelling):\n");
    for f in HONOURED {
        let spelled = match f.value {
            Some(v) => format!("{} {v}", f.flag),
            None => f.flag.to_string(),
        };
        out.push_str(&format!("  {spelled:<24}{}\n", f.help));
    }
    out.push_str(
        "  -Zi, -Qembed_debug, -O0..-O3, -Fo FILE, ...\n                          \
         accepted and ignored: they do not change what a shader computes\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn flags_split_from_other_words() {
        let (dxc, rest) = split_dxc_flags(&words(
            "p.yaml s.hlsl -T cs_6_5 -Emain -D X=1 -o out.yaml -enable-16bit-types -O3 -Zi -HV 202x --wave-size 8 -r Out",
        ));
        assert_eq!(
            dxc,
            words("-T cs_6_5 -Emain -D X=1 -enable-16bit-types -O3 -Zi -HV 202x")
        );
        assert_eq!(
            rest,
            words("p.yaml s.hlsl -o out.yaml --wave-size 8 -r Out")
        );
    }

    #[test]
    fn sixteen_bit_types_need_shader_model_6_2() {
        let err = parse_dxc_flags(&words("-T cs_6_0 -enable-16bit-types")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "-enable-16bit-types needs shader model 6.2 or later, but the profile is cs_6_0"
        );
        let ok = parse_dxc_flags(&words("-T cs_6_2 -enable-16bit-types")).unwrap();
        assert!(ok.options.enable_16bit_types);
        // Without -T the profile is the highest.
        assert!(parse_dxc_flags(&words("-fnative-half-type")).is_ok());
    }

    #[test]
    fn versions_and_unknown_flags() {
        let flags = parse_dxc_flags(&words("-HV 202x -WX -Qembed_debug -O0")).unwrap();
        assert_eq!(flags.hlsl_version, HlslVersion::V202x);
        assert!(flags.warnings_as_errors);
        assert_eq!(flags.ignored, ["-Qembed_debug", "-O0"]);
        assert_eq!(
            parse_dxc_flags(&words("-HV 2018")).unwrap_err().to_string(),
            "-HV 2018: Lockstep compiles HLSL 2021 and 202x"
        );
        assert_eq!(
            parse_dxc_flags(&words("-T gs_6_0")).unwrap_err(),
            DxcError::OtherStage("gs_6_0".into())
        );
        assert!(
            parse_dxc_flags(&words("-Gfa"))
                .unwrap_err()
                .to_string()
                .starts_with("unsupported flag '-Gfa'")
        );
    }

    /// The Vulkan binding flags take their words with them, and warning
    /// options change nothing (`-Werror` is `-WX`).
    #[test]
    fn vulkan_binding_and_warning_flags() {
        let line = "-T cs_6_5 -fvk-u-shift 10 0 -fvk-bind-register u0 0 1 0 -fvk-bind-globals 3 1 -fvk-use-dx-layout -Wconversion -Wno-unused-value s.hlsl";
        let flags = parse_dxc_flags(&words(line)).unwrap();
        assert_eq!(flags.sources, ["s.hlsl"]);
        assert_eq!(
            flags.ignored,
            [
                "-fvk-u-shift 10 0",
                "-fvk-bind-register u0 0 1 0",
                "-fvk-bind-globals 3 1",
                "-fvk-use-dx-layout",
                "-Wconversion",
                "-Wno-unused-value"
            ]
        );
        assert!(!flags.warnings_as_errors);
        assert!(
            parse_dxc_flags(&words("-Werror"))
                .unwrap()
                .warnings_as_errors
        );
        let (dxc, rest) = split_dxc_flags(&words("p.yaml s.hlsl -fvk-t-shift 5 0 --wave-size 8"));
        assert_eq!(dxc, words("-fvk-t-shift 5 0"));
        assert_eq!(rest, words("p.yaml s.hlsl --wave-size 8"));
        assert_eq!(
            parse_dxc_flags(&words("-fvk-s-shift 1"))
                .unwrap_err()
                .to_string(),
            "-fvk-s-shift needs 2 arguments"
        );
    }
}
