#pragma once
// Megatron-LM's training arguments (ecosystem-formats.md §1.2) into a scenario: the one
// mapping that `import megatron` (flags from a launch script or a command line) and
// `import nemo` (the same TransformerConfig fields, written as YAML) share. Megatron's own
// validation rules (§1.4) are checked here with the flag names, before the scenario loader's.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "inputs/import/imported_scenario.hpp"
#include "inputs/import/shell_script.hpp"
#include "models/errors.hpp"

namespace trainsim::inputs::import {

/// One Megatron argument as given: its canonical flag ("--num-layers"), its values (none for a
/// store_true flag) and where it was written.
struct FlagValue {
  std::string flag;                 ///< canonical spelling, with the leading "--"
  std::vector<std::string> values;  ///< the words after the flag, up to the next flag
  SourceLocation where;             ///< file:line:column of the flag (0 when unknown)
  std::string spelled;  ///< as the user wrote it: "--num-layers 96", "model.num_layers: 96"
};

/// Splits a Megatron command line (the words after `pretrain_gpt.py`) into flags: a word
/// starting with "--" opens a flag, the following words up to the next such word are its
/// values ("--flag=value" too). Throws ConfigError for a value before any flag.
std::vector<FlagValue> split_megatron_arguments(std::span<const std::string> words,
                                                std::span<const SourceLocation> where);

/// Where the world size comes from when the flags do not hold it.
struct WorldSize {
  std::int64_t gpus = 0;  ///< 0 = unknown
  std::string source;     ///< "torchrun --nproc_per_node 8 --nnodes 4 (train.sh:40)"
};

/// The world size a torchrun (or `python -m torch.distributed.run`) command line gives:
/// --nproc_per_node x --nnodes (1 when absent); gpus 0 when --nproc_per_node is absent.
/// Throws ConfigError at the flag for a value that is not a whole number ("gpu", "1:4").
WorldSize torchrun_world_size(std::span<const std::string> words,
                              std::span<const SourceLocation> where);

/// The scenario Megatron would run with `flags` on `world` GPUs (`options.gpus` wins over
/// `world`). Flags are matched exactly (argparse's allow_abbrev=False); a later flag wins over
/// an earlier one, as in argparse. Throws ConfigError at the flag for a value Megatron would
/// reject or trainsim cannot simulate (naming the flag, the value and what is valid), and for
/// a missing required flag or world size.
ImportedScenario scenario_from_megatron(std::span<const FlagValue> flags, const WorldSize& world,
                                        const ImportOptions& options, std::string origin);

/// The scenario a launch script's training command runs: its arguments through
/// `split_megatron_arguments`, its launcher's world size, then `scenario_from_megatron`; the
/// expander's notes (unset `$1`, commands not run) join the scenario's.
ImportedScenario scenario_from_launch_command(const LaunchCommand& command,
                                              const ImportOptions& options, std::string origin);

}  // namespace trainsim::inputs::import
