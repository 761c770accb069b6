#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "import_test_support.hpp"
#include "inputs/import/shell_script.hpp"

using namespace trainsim;
using namespace trainsim::inputs::import;
namespace fs = std::filesystem;

namespace {
const fs::path megatron = fs::path(TRAINSIM_TEST_DATA) / "import" / "megatron";

LaunchCommand parse_fixture(const std::string& name) {
  const fs::path path = megatron / name;
  return parse_launch_script(test::read_text(path), path);
}

LaunchCommand parse(std::string_view text) {
  return parse_launch_script(text, "train.sh");
}

std::vector<std::string> texts(const std::vector<ShellWord>& words) {
  std::vector<std::string> out;
  for (const ShellWord& w : words)
    out.push_back(w.text);
  return out;
}

/// The arguments of the training command in `text`.
std::vector<std::string> arguments(std::string_view text) {
  return texts(parse(text).arguments);
}

/// "line:column" of a word.
std::string at(const ShellWord& w) {
  return std::to_string(w.where.line) + ":" + std::to_string(w.where.column);
}

/// The index of the first word equal to `text` (REQUIREd to exist).
std::size_t find_word(const std::vector<ShellWord>& words, std::string_view text) {
  const auto it =
      std::find_if(words.begin(), words.end(), [&](const ShellWord& w) { return w.text == text; });
  REQUIRE_MESSAGE(it != words.end(), "no word " << text);
  return static_cast<std::size_t>(it - words.begin());
}

/// The word after the first `flag`.
const ShellWord& value_of(const std::vector<ShellWord>& words, std::string_view flag) {
  const std::size_t i = find_word(words, flag);
  REQUIRE(i + 1 < words.size());
  return words[i + 1];
}

bool has_note(const LaunchCommand& c, std::string_view part) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

/// what() of the ConfigError `text` raises ("" when it is accepted).
std::string rejection(std::string_view text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

void check_rejected(std::string_view text, std::string_view where, std::string_view reason) {
  CAPTURE(text);
  const std::string what = rejection(text);
  CAPTURE(what);
  std::string prefix = "train.sh:";
  prefix.append(where).append(": ");
  CHECK(what.find(prefix) == 0);
  CHECK(what.find(reason) != std::string::npos);
}
}  // namespace

TEST_CASE("shell script: the GPT-3 175B example expands to bash's words and their positions") {
  const LaunchCommand c = parse_fixture("train_gpt3_175b_distributed.sh");
  CHECK(texts(c.launcher) == std::vector<std::string>{"torchrun", "--nproc_per_node", "8",
                                                      "--nnodes", "1", "--master_addr", "localhost",
                                                      "--master_port", "6000"});
  CHECK(c.script.text == "pretrain_gpt.py");
  CHECK(at(c.script) == "77:33");
  CHECK(c.script.where.file == megatron / "train_gpt3_175b_distributed.sh");
  CHECK(at(c.launcher[2]) == "7:15");  // $GPUS_PER_NODE: where 8 was assigned

  const std::vector<ShellWord>& args = c.arguments;
  CHECK(args.size() == 63);
  CHECK(args[0].text == "--num-layers");
  CHECK(at(args[0]) == "29:5");  // in the GPT_MODEL_ARGS array
  CHECK(args[1].text == "96");
  CHECK(at(args[1]) == "29:18");
  // A trailing comment inside the array is not a word.
  CHECK(value_of(args, "--attention-backend").text == "auto");
  CHECK(args[find_word(args, "--attention-backend") + 2].text == "--micro-batch-size");
  const std::size_t rampup = find_word(args, "--rampup-batch-size");
  CHECK(args[rampup + 1].text == "16");
  CHECK(args[rampup + 2].text == "16");
  CHECK(args[rampup + 3].text == "5859375");
  CHECK(value_of(args, "--lr-warmup-fraction").text == ".001");
  // Tab-indented array lines count the tab as one column.
  CHECK(at(args[find_word(args, "--tensor-model-parallel-size")]) == "56:2");
  CHECK(value_of(args, "--split").text == "949,50,1");
  // $1..$5 are empty, so bash passes --save straight followed by --load.
  CHECK(value_of(args, "--save").text == "--load");
  CHECK(value_of(args, "--data-path").text == "--vocab-file");
  CHECK(args.back().text == "--tensorboard-dir");

  CHECK(c.exported == std::map<std::string, std::string>{{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}});
  CHECK(c.variables.at("WORLD_SIZE") == "8");
  CHECK(c.variables.at("CHECKPOINT_PATH").empty());
  CHECK(c.variables.at("MODEL_PARALLEL_ARGS") ==
        "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 16");
  CHECK(has_note(c, "$1 ("));
  CHECK(has_note(c, "train_gpt3_175b_distributed.sh:15:17): no value, empty"));
  CHECK(has_note(c, "$5 ("));
}

TEST_CASE("shell script: the Llama 3 8B FP8 example takes the fp8 branch and splits its elements") {
  const LaunchCommand c = parse_fixture("train_llama3_8b_h100_fp8.sh");
  CHECK(texts(c.launcher) == std::vector<std::string>{"torchrun", "--nproc_per_node", "8",
                                                      "--nnodes", "1", "--node_rank", "0",
                                                      "--master_addr", "localhost", "--master_port",
                                                      "6000"});
  CHECK(c.script.text == "pretrain_gpt.py");
  CHECK(at(c.script) == "31:23");  // "$PRETRAIN_SCRIPT_PATH": where its value was written

  const std::vector<ShellWord>& args = c.arguments;
  // DTYPE=${3:-"fp8"}: the default, silently.
  CHECK(c.variables.at("DTYPE") == "fp8");
  CHECK_FALSE(has_note(c, "$3"));
  // "--fp8-format hybrid" is one array element that unquoted ${DTYPE_ARGS[@]} splits in two,
  // each word at its own column.
  const std::size_t fp8 = find_word(args, "--fp8-format");
  CHECK(at(args[fp8]) == "98:10");
  CHECK(args[fp8 + 1].text == "hybrid");
  CHECK(at(args[fp8 + 1]) == "98:23");
  CHECK(value_of(args, "--fp8-amax-history-len").text == "1024");
  CHECK(value_of(args, "--fp8-amax-compute-algo").text == "max");
  CHECK(value_of(args, "--fp8-amax-compute-algo").where.line == 100);
  CHECK(find_word(args, "--fp8-param-gather") > fp8);
  // TRAINING_ARGS+=("${DDP_ARGS[@]}") keeps the DDP flags' own lines.
  const std::size_t ddp = find_word(args, "--use-distributed-optimizer");
  CHECK(args[ddp - 1].text == "235");
  CHECK(at(args[ddp]) == "116:5");
  // Values through variables point where the variable was assigned.
  CHECK(value_of(args, "--seq-length").text == "8192");
  CHECK(at(value_of(args, "--seq-length")) == "40:12");
  CHECK(value_of(args, "--num-layers").text == "32");
  CHECK(value_of(args, "--tokenizer-model").text == "meta-llama/Meta-Llama-3-8B");
  CHECK(value_of(args, "--split").text == "99,1,0");
  CHECK(value_of(args, "--save").text == "checkpoints/llama3_8b_fp8");
  CHECK(at(value_of(args, "--save")) == "12:23");
  // ${PWD} is not set by the script: empty, with a note.
  CHECK(value_of(args, "--data-cache-path").text == "/benchmark_cache_llama3_8b_fp8");
  CHECK(has_note(c, "$PWD ("));
  // `2>&1 | tee ${LOG}` is not part of the command.
  CHECK(args.back().text == "tensorboard_logs/llama3_8b_fp8");
  CHECK(std::none_of(args.begin(), args.end(), [](const ShellWord& w) {
    return w.text == "tee" || w.text.find('>') != std::string::npos;
  }));
  CHECK(has_note(c, "$(...) at "));
  CHECK(has_note(c, "train_llama3_8b_h100_fp8.sh:18:11 not run: empty"));
  CHECK(c.variables.at("LOG") == "logs/llama3_8b_fp8.log");
  CHECK(c.exported.at("CUDA_DEVICE_MAX_CONNECTIONS") == "1");
}

TEST_CASE("shell script: the bf16 branch of the Llama 3 example adds no fp8 flags") {
  std::string text = test::read_text(megatron / "train_llama3_8b_h100_fp8.sh");
  const std::string from = "DTYPE=${3:-\"fp8\"}";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "DTYPE=bf16");
  const LaunchCommand c = parse(text);
  CHECK(c.variables.at("DTYPE_ARGS").empty());
  CHECK(std::none_of(c.arguments.begin(), c.arguments.end(),
                     [](const ShellWord& w) { return w.text.starts_with("--fp8"); }));
  CHECK(c.variables.at("LOG") == "logs/llama3_8b_bf16.log");
}

TEST_CASE("shell script: the Mixtral 8x7B example reads SLURM defaults and skips the wandb block") {
  const LaunchCommand c = parse_fixture("train_mixtral_8x7b_distributed.sh");
  CHECK(texts(c.launcher) == std::vector<std::string>{"torchrun", "--nproc_per_node", "8",
                                                      "--nnodes", "1", "--node_rank", "0",
                                                      "--master_addr", "localhost", "--master_port",
                                                      "6000"});
  CHECK(at(c.launcher[4]) == "11:25");  // "1" in ${SLURM_NNODES:-"1"}
  CHECK_FALSE(has_note(c, "SLURM_NNODES"));
  CHECK(c.variables.at("WORLD_SIZE") == "8");

  const std::vector<ShellWord>& args = c.arguments;
  CHECK(at(value_of(args, "--num-layers")) == "32:18");
  CHECK(value_of(args, "--moe-aux-loss-coeff").text == "1e-2");
  CHECK(value_of(args, "--split").text == "99990,8,2");
  CHECK(value_of(args, "--expert-model-parallel-size").text == "8");
  // The logging array is written with `\` continuations.
  CHECK(value_of(args, "--tensorboard-dir").text == "/tensorboard");
  CHECK(at(value_of(args, "--tensorboard-dir")) == "97:42");
  CHECK(args.back().text == "--no-load-rng");
  CHECK(at(args.back()) == "99:5");
  // WANDB_API_KEY is not set, so `[ -n "${WANDB_API_KEY}" ]` is false.
  CHECK(std::none_of(args.begin(), args.end(),
                     [](const ShellWord& w) { return w.text.starts_with("--wandb"); }));
  CHECK(has_note(c, "$WANDB_API_KEY ("));
  CHECK(has_note(c, "$2 ("));
}

TEST_CASE("shell script: arrays, quotes and word splitting follow bash") {
  CHECK(arguments("A=\"a b\"\nB=(x \"y z\" '')\n"
                  "torchrun pretrain_gpt.py $A \"$A\" ${B[@]} \"${B[@]}\" \"${B[*]}\" x${B[@]}y "
                  "\"x${B[@]}y\"\n") == std::vector<std::string>{"a", "b", "a b", "x", "y", "z",
                                                                 "x", "y z", "", "x y z ", "xx",
                                                                 "y", "z", "y", "xx", "y z", "y"});
  CHECK(arguments("E=()\ntorchrun pretrain_gpt.py \"${E[@]}\" \"${E[*]}\" ${E[@]} \"\" $UNSET "
                  "\"$UNSET\" ''\"$UNSET\" ${#E[@]}\n") ==
        std::vector<std::string>{"", "", "", "", "0"});
  CHECK(arguments("X='  lead  trail  '\ntorchrun pretrain_gpt.py a${X}b \"${X}\"\n") ==
        std::vector<std::string>{"a", "lead", "trail", "b", "  lead  trail  "});
  CHECK(arguments(
            "torchrun pretrain_gpt.py a\\ b \"c\\\"d\" 'e\\f' \"g\\\\h\" \"\\$i\" \\$j # c\n") ==
        std::vector<std::string>{"a b", "c\"d", "e\\f", "g\\h", "$i", "$j"});
  CHECK(arguments("torchrun pretrain_gpt.py a#b \"#c\" #d\n") ==
        std::vector<std::string>{"a#b", "#c"});
  CHECK(arguments("A=1; A+=2; B=(x); B+=(y z); C=s; C+=(t)\n"
                  "torchrun pretrain_gpt.py $A ${B[@]} ${C[@]} ${B[1]} $B ${#A}\n") ==
        std::vector<std::string>{"12", "x", "y", "z", "s", "t", "y", "x", "2"});
  // A string variable continued over lines splits into words that keep their own lines.
  const LaunchCommand c = parse(
      "OPTS=\"--num-layers 2 \\\n    --hidden-size 64\"\n"
      "torchrun pretrain_gpt.py $OPTS\n");
  CHECK(texts(c.arguments) == std::vector<std::string>{"--num-layers", "2", "--hidden-size", "64"});
  CHECK(at(c.arguments[1]) == "1:20");
  CHECK(at(c.arguments[2]) == "2:5");
  // Comments, blank lines and line continuations inside an array.
  const LaunchCommand a = parse(
      "A=(\n  --x 1   # one\n\n  # a whole line\n  --y \"2 3\" \\\n"
      "  --z\n)\ntorchrun pretrain_gpt.py \"${A[@]}\"\n");
  CHECK(texts(a.arguments) == std::vector<std::string>{"--x", "1", "--y", "2 3", "--z"});
  CHECK(at(a.arguments[3]) == "5:8");
  CHECK(a.variables.at("A") == "--x 1 --y 2 3 --z");
}

TEST_CASE("shell script: positional parameters are empty with a note unless they have a default") {
  const LaunchCommand c = parse(
      "#!/bin/bash\nCKPT=$1\nDATA=${2:-/data/x}\nN=${3-4}\n"
      "torchrun pretrain_gpt.py --load $CKPT --data-path $DATA "
      "--num-layers $N $0 $# ${10}\n");
  CHECK(texts(c.arguments) == std::vector<std::string>{"--load", "--data-path", "/data/x",
                                                       "--num-layers", "4", "train.sh", "0"});
  CHECK(c.notes.size() == 2);
  CHECK(has_note(c, "$1 (train.sh:2:6): no value, empty"));
  CHECK(has_note(c, "$10 (train.sh:5:79): no value, empty"));
  CHECK(c.variables.at("CKPT").empty());
}

TEST_CASE("shell script: arithmetic on 64-bit integers") {
  CHECK(arguments("X=5\nY=3\ntorchrun pretrain_gpt.py $((X*Y+2)) $(( (X+Y) % 3 )) $((-X/2)) "
                  "$((X-Y-1)) $(( $X * ${Y} )) $((010)) $((0x1F)) $((-(-X))) $(( ))\n") ==
        std::vector<std::string>{"17", "2", "-2", "1", "15", "8", "31", "5", "0"});
  const LaunchCommand c = parse(
      "GPUS_PER_NODE=8\nNNODES=${SLURM_NNODES:-\"4\"}\n"
      "WORLD_SIZE=$(($GPUS_PER_NODE*$NNODES))\nTP=$((WORLD_SIZE / 4))\n"
      "torchrun pretrain_gpt.py --tensor-model-parallel-size $TP\n");
  CHECK(c.variables.at("WORLD_SIZE") == "32");
  CHECK(c.arguments[1].text == "8");
  CHECK(arguments("D=$((-9223372036854775807-1))\ntorchrun pretrain_gpt.py $((D/-1)) $((D%-1)) "
                  "$((9223372036854775807+1))\n") ==
        std::vector<std::string>{"-9223372036854775808", "0", "-9223372036854775808"});
  check_rejected("A=$((1/0))\n", "1:3", "divides by zero");
  check_rejected("A=$((4 % (2-2)))\n", "1:3", "divides by zero");
  check_rejected("A=$((99999999999999999999))\n", "1:3", "beyond 64-bit integers");
  check_rejected("A=$((2**3))\n", "1:3", "+ - * / % and parentheses");
  check_rejected("A=$((1+))\n", "1:3", "where a number, a variable or ( was expected");
  check_rejected("a=a\nB=$((a))\n", "2:3", "refers to `a` through more than 32 variables");
}

TEST_CASE("shell script: command substitution and the environment are not read") {
  const LaunchCommand c = parse(
      "HOST=$(hostname)\nDIR=\"$(dirname \"$0\")/x\"\nT=`date`\n"
      "export MASTER_ADDR=${MASTER_ADDR:-localhost}\n"
      "torchrun --master_addr $MASTER_ADDR pretrain_gpt.py $HOST $DIR "
      "\"$HOME\" $HOME $SLURM_JOB_ID\n");
  CHECK(texts(c.arguments) == std::vector<std::string>{"/x", ""});
  CHECK(has_note(c, "$(...) at train.sh:1:6 not run: empty"));
  CHECK(has_note(c, "$(...) at train.sh:2:6 not run: empty"));
  CHECK(has_note(c, "`...` at train.sh:3:3 not run: empty"));
  CHECK(has_note(c, "$HOME (train.sh:5:65): not set in the script, empty"));
  CHECK(has_note(c, "$SLURM_JOB_ID ("));
  CHECK(std::count_if(c.notes.begin(), c.notes.end(), [](const std::string& n) {
          return n.starts_with("$HOME");
        }) == 1);  // once per name
  CHECK_FALSE(has_note(c, "MASTER_ADDR"));
  CHECK(c.launcher[2].text == "localhost");
}

TEST_CASE("shell script: if, elif and else take the branch bash takes") {
  CHECK(arguments("if [ \"a\" = \"b\" ]; then X=1; elif [ -z \"\" ]; then X=2; else X=3; fi\n"
                  "torchrun pretrain_gpt.py $X\n") == std::vector<std::string>{"2"});
  CHECK(arguments("N=4\nif [[ $N -gt 3 && $N -lt 10 ]]; then R=in; else R=out; fi\n"
                  "if [ $N -eq 4 ] && [ \"$N\" != 5 ]; then S=yes; fi\n"
                  "if [[ $N -ge 5 || \"$N\" == 4 ]]\nthen\n  T=or\nfi\n"
                  "if ! [ -n \"$N\" ]; then U=neg; else U=pos; fi\n"
                  "torchrun pretrain_gpt.py $R $S $T $U\n") ==
        std::vector<std::string>{"in", "yes", "or", "pos"});
  CHECK(arguments("if true\nthen\n  if false; then A=1\n  else\n    A=2\n  fi\nelse\n  A=3\nfi\n"
                  "torchrun pretrain_gpt.py $A\n") == std::vector<std::string>{"2"});
  // Glob patterns on the right of == in [[ ]], literal when quoted.
  CHECK(
      arguments("D=fp8x\nif [[ $D == fp8* ]]; then G=glob; fi\n"
                "if [[ $D == \"fp8*\" ]]; then H=literal; fi\ntorchrun pretrain_gpt.py $G $H\n") ==
      std::vector<std::string>{"glob"});
  // The training command inside the branch that is taken; the other is only parsed.
  const LaunchCommand c = parse(
      "MODE=${1:-multi}\nif [ \"$MODE\" == single ]; then\n"
      "  python pretrain_gpt.py --single $UNSEEN\nelse\n"
      "  torchrun --nnodes 2 pretrain_gpt.py --multi\nfi\n");
  CHECK(texts(c.arguments) == std::vector<std::string>{"--multi"});
  CHECK_FALSE(has_note(c, "UNSEEN"));
  // File tests cannot be known: false, with a note.
  const LaunchCommand f = parse(
      "if [ ! -f pretrain_gpt.py ]; then\n  echo missing\n  exit 1\nfi\n"
      "torchrun pretrain_gpt.py\n");
  CHECK(has_note(f, "test -f pretrain_gpt.py (train.sh:1:4): the importer does not look at files"));
  CHECK(has_note(f, "`exit` at train.sh:3:3 not followed"));
  // [ with a malformed test behaves as bash: an error, taken as false.
  const LaunchCommand m = parse(
      "if [ abc -eq 1 ]; then A=1; else A=2; fi\n"
      "torchrun pretrain_gpt.py $A\n");
  CHECK(texts(m.arguments) == std::vector<std::string>{"2"});
  CHECK(has_note(m, "-eq compares integers, and `abc` is not one"));
}

TEST_CASE("shell script: && and || run their right side when bash would") {
  CHECK(
      arguments("N=1\n[[ -n \"$N\" ]] && T=t1 || T=t2\n[ -z \"$N\" ] && U=u1 || U=u2\n"
                "false || V=v\ntrue && W=w; : || X=x\ntorchrun pretrain_gpt.py $T $U $V $W $X\n") ==
      std::vector<std::string>{"t1", "u2", "v", "w"});
}

TEST_CASE("shell script: redirections, pipes and a trailing & are not the command's words") {
  CHECK(arguments("torchrun pretrain_gpt.py --a 1 > out.log 2>&1 &\n") ==
        std::vector<std::string>{"--a", "1"});
  CHECK(arguments("LOG=x.log\ntorchrun pretrain_gpt.py --a 2>&1 | tee -a ${LOG}\n") ==
        std::vector<std::string>{"--a"});
  CHECK(arguments("torchrun pretrain_gpt.py --a &> log.txt; echo done\n") ==
        std::vector<std::string>{"--a"});
  // A here-document's body is not read as commands.
  CHECK(arguments("cat <<EOF > /dev/null\npython pretrain_bert.py --no\nEOF\n"
                  "torchrun pretrain_gpt.py --yes\n") == std::vector<std::string>{"--yes"});
  CHECK(arguments("cat <<-'END'\n\tpython pretrain_bert.py --no\n\tEND\n"
                  "torchrun pretrain_gpt.py --yes\n") == std::vector<std::string>{"--yes"});
}

TEST_CASE("shell script: the last pretrain command is the training command, after any launcher") {
  const LaunchCommand c = parse(
      "torchrun pretrain_gpt.py --first\necho python pretrain_x.py\n"
      "P=/workspace/megatron/pretrain_mamba.py\n"
      "python -m torch.distributed.run --nproc_per_node 8 $P --tp 2\n");
  CHECK(texts(c.launcher) ==
        std::vector<std::string>{"python", "-m", "torch.distributed.run", "--nproc_per_node", "8"});
  CHECK(c.script.text == "/workspace/megatron/pretrain_mamba.py");
  CHECK(at(c.script) == "3:3");
  CHECK(texts(c.arguments) == std::vector<std::string>{"--tp", "2"});
  const LaunchCommand s = parse("srun --ntasks-per-node 8 python -u pretrain_gpt.py --x");
  CHECK(texts(s.launcher) ==
        std::vector<std::string>{"srun", "--ntasks-per-node", "8", "python", "-u"});
  CHECK(texts(s.arguments) == std::vector<std::string>{"--x"});
  // Commands after the training command do not change what it saw.
  const LaunchCommand after = parse("A=1\ntorchrun pretrain_gpt.py\nA=2\necho $NOTSEEN\n");
  CHECK(after.variables.at("A") == "1");
  CHECK(after.notes.empty());
}

TEST_CASE("shell script: export, declare and prefix assignments") {
  const LaunchCommand c = parse(
      "export CUDA_DEVICE_MAX_CONNECTIONS=1 NVTE_FLAG=0\nB=2\nexport B\n"
      "declare -a ARR=(1 2)\nlocal L=3\nreadonly R=4\ndeclare -x X=5\n"
      "NCCL_DEBUG=INFO torchrun pretrain_gpt.py ${ARR[@]} $L $R\n");
  CHECK(texts(c.arguments) == std::vector<std::string>{"1", "2", "3", "4"});
  CHECK(c.exported == std::map<std::string, std::string>{{"B", "2"},
                                                         {"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                                                         {"NCCL_DEBUG", "INFO"},
                                                         {"NVTE_FLAG", "0"},
                                                         {"X", "5"}});
  CHECK(c.variables.at("ARR") == "1 2");
  CHECK(c.variables.at("NCCL_DEBUG") == "INFO");
  // ${X:=default} assigns; unset removes.
  const LaunchCommand d = parse("echo ${TP:=4}\nunset B\ntorchrun pretrain_gpt.py $TP $B\n");
  CHECK(texts(d.arguments) == std::vector<std::string>{"4"});
  CHECK(d.variables.count("B") == 0);
}

TEST_CASE("shell script: CRLF line ends read as LF") {
  const LaunchCommand c = parse(
      "ARGS=(\r\n  --num-layers 2 \\\r\n  --hidden-size 64\r\n)\r\n"
      "torchrun pretrain_gpt.py ${ARGS[@]}\r\n");
  CHECK(texts(c.arguments) == std::vector<std::string>{"--num-layers", "2", "--hidden-size", "64"});
  CHECK(at(c.arguments[2]) == "3:3");
}

TEST_CASE("shell script: errors name the file, line and column and what is wrong") {
  check_rejected("A='abc\ntorchrun pretrain_gpt.py\n", "1:3", "unterminated single quote");
  check_rejected("ARGS=(\n  --x \"1\n)\n", "2:7", "unterminated double quote");
  check_rejected("ARGS=(\n  --num-layers 96\n", "1:1",
                 "unterminated array: the ( of ARGS=( opened here has no closing )");
  check_rejected("A=${X:-abc\n", "1:3", "unterminated ${");
  check_rejected("A=${X\n", "1:3", "unterminated ${");
  check_rejected("A=$((1+2\n", "1:3", "unterminated $((");
  check_rejected("A=$(date\n", "1:3", "unterminated $(");
  check_rejected("A=`date\n", "1:3", "unterminated backtick");
  check_rejected("X=1\nif [ \"$X\" == 1 ]; then\n  A=1\n", "2:1", "`if` without `fi`");
  check_rejected("if [ 1 ]\nA=1\nfi\n", "3:1", "unexpected `fi`: expected `then`");
  check_rejected("A=1\nfi\n", "2:1", "`fi` without a matching `if`");
  check_rejected("if [[ a == b\nthen\n", "1:4", "`[[` without `]]`");
  check_rejected("cat <<EOF\nabc\n", "1:5", "unterminated here-document");
  check_rejected("A=1\nfor i in 1 2; do\n  echo $i\ndone\n", "2:1",
                 "`for` loops are not followed by the importer: write the flags out");
  check_rejected("while true; do :; done\n", "1:1", "`while` loops are not followed");
  check_rejected("case $X in a) ;; esac\n", "1:1", "`case` statements are not followed");
  check_rejected("f() {\n  echo\n}\n", "1:1", "functions are not followed");
  check_rejected("function f {\n  echo\n}\n", "1:1", "functions are not followed");
  check_rejected("(cd x && ls)\n", "1:1", "subshells");
  check_rejected("{ echo; }\n", "1:1", "command groups");
  check_rejected("A=${B/x/y}\n", "1:6", "${B/...} is not followed by the importer");
  check_rejected("A=${!B}\n", "1:3", "indirect expansion");
  check_rejected("A=${B[i]}\n", "1:3", "array index [i] is not followed");
  check_rejected("A[0]=1\n", "1:1", "assigning one array element");
  check_rejected("A=$'x'\n", "1:3", "$'...' strings");
  check_rejected("diff <(ls) x\n", "1:6", "process substitution");
  check_rejected("if [[ a =~ b ]]; then :; fi\n", "1:4", "=~");
  check_rejected("eval torchrun pretrain_gpt.py\n", "1:1", "`eval` is not followed");
  check_rejected("A=(1)x\n", "1:6", "right after the ) that closes A=(");
  check_rejected("A=(1; 2)\n", "1:5", "unexpected `;` inside the array A=(");
  check_rejected("A=1 &&\n", "2:1", "expected a command, found the end of the script");
  check_rejected("A=1\necho hello\n", "3:1",
                 "no command running pretrain*.py in train.sh: the importer reads the "
                 "torchrun/python line that starts Megatron's pretraining script");
}

TEST_CASE("shell script: hostile input is rejected, never crashed on") {
  std::string deep = "X=";
  for (int i = 0; i < 2000; ++i)
    deep += "${a:-";
  deep.append("x").append(2000, '}').append("\ntorchrun pretrain_gpt.py $X\n");
  CHECK(rejection(deep).find("nested more than 64 deep") != std::string::npos);

  std::string ifs;
  for (int i = 0; i < 2000; ++i)
    ifs += "if true; then\n";
  CHECK(rejection(ifs).find("`if` blocks nested more than 64 deep") != std::string::npos);

  std::string doubling = "A=xxxxxxxxxxxxxxxx\n";
  for (int i = 0; i < 40; ++i)
    doubling += "A=\"$A$A\"\n";
  // The running total (4 MiB) or one word's size (1 MiB) stops it, whichever comes first.
  CHECK(rejection(doubling + "torchrun pretrain_gpt.py $A\n").find("MiB") != std::string::npos);

  std::string chain;
  for (int i = 0; i < 31; ++i) {
    const std::string next = std::to_string(i + 1);
    chain.append("a").append(std::to_string(i)).append("='a").append(next);
    chain.append("+a").append(next).append("'\n");
  }
  CHECK(rejection(chain + "a31=1\nX=$((a0))\n").find("more than 4 MiB") != std::string::npos);

  static constexpr char junk[] = "\0\xff$\x01{\"\x7f'(";  // 9 bytes, the first a NUL
  CHECK(rejection(std::string(junk, sizeof(junk) - 1)).find("train.sh:1:") == 0);
}

TEST_CASE("shell script: every fuzz regression input is accepted or rejected with a ConfigError") {
  const fs::path dir = fs::path(TRAINSIM_SOURCE_ROOT) / "tests/fuzz/regressions/launch_script";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    CAPTURE(entry.path());
    ++files;
    try {
      (void)parse_launch_script(test::read_text(entry.path()), entry.path());
    } catch (const ConfigError&) {
    }
  }
  CHECK(files >= 6);
}
