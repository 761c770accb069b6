#include "documents/report_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "documents/atomic_file.hpp"
#include "documents/generated_blocks.hpp"
#include "documents/subprocess.hpp"

namespace trainsim::documents {
namespace {

std::string new_readme(const std::string& name, const std::string& title,
                       const ReportContent& content) {
  std::string out = fmt::format("# {} — {}\n", name, title);
  for (const std::string& block : content.block_order) {
    out += fmt::format("\n{}\n{}\n", begin_marker(name, block), end_marker());
  }
  return out;
}

// The first line where `a` and `b` differ (1-based), with both lines, shortened.
std::string first_difference(const std::string& committed, const std::string& generated) {
  std::size_t pos = 0;
  int line = 1;
  while (true) {
    const std::size_t ea = committed.find('\n', pos);
    const std::size_t eb = generated.find('\n', pos);
    const std::string a =
        committed.substr(pos, ea == std::string::npos ? std::string::npos : ea - pos);
    const std::string b =
        generated.substr(pos, eb == std::string::npos ? std::string::npos : eb - pos);
    if (a != b || ea != eb) {
      const auto shorten = [](const std::string& s) {
        return s.size() > 160 ? s.substr(0, 157) + "..." : s;
      };
      return fmt::format("line {}: committed '{}', regenerated '{}'", line, shorten(a),
                         ea == std::string::npos && pos >= generated.size()
                             ? std::string("(end of file)")
                             : shorten(b));
    }
    if (ea == std::string::npos) return "differs";  // unreachable for different texts
    pos = ea + 1;
    ++line;
  }
}

}  // namespace

ReportFiles render_report(const std::string& name, const std::string& title,
                          const ReportContent& content, const std::string& readme,
                          const std::string& readme_file) {
  ReportFiles files;
  const std::string template_text = readme.empty() ? new_readme(name, title, content) : readme;
  files["README.md"] = fill_marked_text(parse_marked_text(template_text, readme_file, name),
                                        content.blocks, readme_file);
  for (const ReportTable& t : content.tables)
    files[t.id + ".csv"] = t.csv();
  for (const ReportPlot& p : content.plots)
    files[p.id + ".svg"] = std::visit([](const auto& spec) { return render_svg(spec); }, p.spec);
  return files;
}

void write_report_files(const ReportFiles& files, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& [file, text] : files)
    write_atomically(dir / file, text);
}

std::vector<ReportDifference> compare_report_files(const ReportFiles& files,
                                                   const std::filesystem::path& dir) {
  std::vector<ReportDifference> out;
  for (const auto& [file, text] : files) {
    const std::filesystem::path path = dir / file;
    if (!std::filesystem::exists(path)) {
      out.push_back({file, "missing"});
      continue;
    }
    const std::string committed = read_file(path);
    if (committed != text) out.push_back({file, first_difference(committed, text)});
  }
  if (std::filesystem::is_directory(dir)) {
    std::vector<std::string> stale;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string file = entry.path().filename().string();
      const std::string ext = entry.path().extension().string();
      if ((ext == ".csv" || ext == ".svg") && !files.contains(file)) stale.push_back(file);
    }
    std::sort(stale.begin(), stale.end());
    for (const std::string& file : stale)
      out.push_back({file, "committed but not generated (stale)"});
  }
  return out;
}

}  // namespace trainsim::documents
