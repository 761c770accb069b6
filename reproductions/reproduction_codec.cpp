#include "reproductions/reproduction_codec.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::reproductions {
namespace {

// Vectors of any element, each with its own writer and reader.
template <class T>
void put_all(ByteWriter& out, const std::vector<T>& items,
             const std::function<void(ByteWriter&, const T&)>& put) {
  out.put(items.size());
  for (const T& item : items)
    put(out, item);
}

template <class T>
std::vector<T> get_all(ByteReader& in, const std::function<T(ByteReader&)>& get) {
  std::vector<T> items(in.get<std::size_t>());
  for (T& item : items)
    item = get(in);
  return items;
}

void put_strings(ByteWriter& out, const std::vector<std::string>& texts) {
  put_all<std::string>(out, texts, [](ByteWriter& o, const std::string& t) { o.put_string(t); });
}

std::vector<std::string> get_strings(ByteReader& in) {
  return get_all<std::string>(in, [](ByteReader& i) { return i.get_string(); });
}

void put_comparison(ByteWriter& out, const Comparison& c) {
  out.put_string(c.figure);
  out.put_string(c.source);
  out.put_string(c.unit);
  out.put(c.published);
  out.put(c.predicted);
  out.put(c.aim);
  out.put(c.tolerance);
  out.put(c.not_reproduced.has_value());
  if (c.not_reproduced) {
    out.put_string(c.not_reproduced->why);
    out.put_string(c.not_reproduced->evidence);
    out.put(c.not_reproduced->evidence_holds);
  }
  out.put(c.setup_from_map);
  out.put_string(c.set);
}

Comparison get_comparison(ByteReader& in) {
  Comparison c;
  c.figure = in.get_string();
  c.source = in.get_string();
  c.unit = in.get_string();
  c.published = in.get<double>();
  c.predicted = in.get<double>();
  c.aim = in.get<double>();
  c.tolerance = in.get<double>();
  if (in.get<bool>()) {
    NotReproduced n;
    n.why = in.get_string();
    n.evidence = in.get_string();
    n.evidence_holds = in.get<bool>();
    c.not_reproduced = n;
  }
  c.setup_from_map = in.get<bool>();
  c.set = in.get_string();
  return c;
}

void put_claim(ByteWriter& out, const Claim& c) {
  out.put_string(c.statement);
  out.put_string(c.source);
  out.put_string(c.evidence);
  out.put(c.holds);
  out.put(c.expected);
  out.put_string(c.why_not);
  out.put_string(c.explanation);
  out.put(c.explanation_holds);
}

Claim get_claim(ByteReader& in) {
  Claim c;
  c.statement = in.get_string();
  c.source = in.get_string();
  c.evidence = in.get_string();
  c.holds = in.get<bool>();
  c.expected = in.get<bool>();
  c.why_not = in.get_string();
  c.explanation = in.get_string();
  c.explanation_holds = in.get<bool>();
  return c;
}

void put_table(ByteWriter& out, const documents::ReportTable& t) {
  out.put_string(t.id);
  put_strings(out, t.columns);
  put_all<std::vector<std::string>>(out, t.rows, put_strings);
}

documents::ReportTable get_table(ByteReader& in) {
  documents::ReportTable t;
  t.id = in.get_string();
  t.columns = get_strings(in);
  t.rows = get_all<std::vector<std::string>>(in, get_strings);
  return t;
}

void put_sweep(ByteWriter& out, const Sweep& s) {
  out.put_string(s.id);
  out.put_string(s.title);
  out.put_string(s.x_label);
  out.put_string(s.y_label);
  out.put(s.log_x);
  out.put_vector(s.xs);
  put_all<SweepSeries>(out, s.series, [](ByteWriter& o, const SweepSeries& series) {
    o.put_string(series.name);
    o.put_vector(series.values);
  });
  put_strings(out, s.row_notes);
  put_all<SweepReference>(out, s.references, [](ByteWriter& o, const SweepReference& r) {
    o.put(r.x);
    o.put(r.y);
    o.put_string(r.label);
  });
}

Sweep get_sweep(ByteReader& in) {
  Sweep s;
  s.id = in.get_string();
  s.title = in.get_string();
  s.x_label = in.get_string();
  s.y_label = in.get_string();
  s.log_x = in.get<bool>();
  s.xs = in.get_vector<double>();
  s.series = get_all<SweepSeries>(in, [](ByteReader& i) {
    SweepSeries series;
    series.name = i.get_string();
    series.values = i.get_vector<double>();
    return series;
  });
  s.row_notes = get_strings(in);
  s.references = get_all<SweepReference>(in, [](ByteReader& i) {
    SweepReference r;
    r.x = i.get<double>();
    r.y = i.get<double>();
    r.label = i.get_string();
    return r;
  });
  return s;
}

namespace maps = claim_maps;

void put_value(ByteWriter& out, const maps::MapValue& v) {
  out.put(v.ratio);
  out.put(v.feasible);
  out.put_string(v.note);
}

maps::MapValue get_value(ByteReader& in) {
  maps::MapValue v;
  v.ratio = in.get<double>();
  v.feasible = in.get<bool>();
  v.note = in.get_string();
  return v;
}

void put_values(ByteWriter& out, const std::vector<maps::MapValue>& values) {
  put_all<maps::MapValue>(out, values, put_value);
}

std::vector<maps::MapValue> get_values(ByteReader& in) {
  return get_all<maps::MapValue>(in, get_value);
}

void put_spec(ByteWriter& out, const maps::ClaimMapSpec& s) {
  for (const std::string* text :
       {&s.id, &s.paper, &s.claim, &s.source, &s.unit, &s.decides, &s.infeasible_means})
    out.put_string(*text);
  out.put(s.published);
  out.put(s.tolerance);
  put_all<maps::Axis>(out, s.axes, [](ByteWriter& o, const maps::Axis& axis) {
    o.put_string(axis.name);
    put_all<maps::AxisValue>(o, axis.values, [](ByteWriter& w, const maps::AxisValue& v) {
      w.put_string(v.label);
      w.put(v.plausible);
    });
    o.put(axis.paper);
    o.put_string(axis.why);
  });
  out.put(s.grid_x);
  out.put(s.grid_y);
  out.put_vector(s.exhaustive_axes);
}

maps::ClaimMapSpec get_spec(ByteReader& in) {
  maps::ClaimMapSpec s;
  for (std::string* text :
       {&s.id, &s.paper, &s.claim, &s.source, &s.unit, &s.decides, &s.infeasible_means})
    *text = in.get_string();
  s.published = in.get<double>();
  s.tolerance = in.get<double>();
  s.axes = get_all<maps::Axis>(in, [](ByteReader& i) {
    maps::Axis axis;
    axis.name = i.get_string();
    axis.values = get_all<maps::AxisValue>(i, [](ByteReader& r) {
      maps::AxisValue v;
      v.label = r.get_string();
      v.plausible = r.get<bool>();
      return v;
    });
    axis.paper = i.get<std::size_t>();
    axis.why = i.get_string();
    return axis;
  });
  s.grid_x = in.get<std::size_t>();
  s.grid_y = in.get<std::size_t>();
  s.exhaustive_axes = in.get_vector<std::size_t>();
  return s;
}

void put_map(ByteWriter& out, const maps::ClaimMap& m) {
  put_spec(out, m.spec);
  put_value(out, m.at_paper);
  put_all<maps::MapLine>(out, m.lines, [](ByteWriter& o, const maps::MapLine& line) {
    o.put(line.axis);
    put_values(o, line.values);
  });
  put_all<std::vector<maps::MapValue>>(out, m.grid, put_values);
  out.put_vector(m.closest);
  put_value(out, m.closest_value);
  out.put(m.fewest_changes.has_value());
  if (m.fewest_changes) out.put_vector(*m.fewest_changes);
  out.put(m.fewest_changes_value.has_value());
  if (m.fewest_changes_value) put_value(out, *m.fewest_changes_value);
  out.put(m.evaluations);
  out.put(m.converged);
}

maps::ClaimMap get_map(ByteReader& in) {
  maps::ClaimMap m;
  m.spec = get_spec(in);
  m.at_paper = get_value(in);
  m.lines = get_all<maps::MapLine>(in, [](ByteReader& i) {
    maps::MapLine line;
    line.axis = i.get<std::size_t>();
    line.values = get_values(i);
    return line;
  });
  m.grid = get_all<std::vector<maps::MapValue>>(in, get_values);
  m.closest = in.get_vector<std::size_t>();
  m.closest_value = get_value(in);
  if (in.get<bool>()) m.fewest_changes = in.get_vector<std::size_t>();
  if (in.get<bool>()) m.fewest_changes_value = get_value(in);
  m.evaluations = in.get<std::size_t>();
  m.converged = in.get<bool>();
  return m;
}

}  // namespace

void encode(ByteWriter& out, const ReproductionReport& report) {
  put_all<Comparison>(out, report.comparisons, put_comparison);
  put_all<Comparison>(out, report.set_rows, put_comparison);
  put_all<Claim>(out, report.claims, put_claim);
  out.put_string(report.notes);
  put_all<documents::ReportTable>(out, report.tables, put_table);
  put_all<documents::ReportTable>(out, report.csv_tables, put_table);
  put_all<Sweep>(out, report.sweeps, put_sweep);
  put_all<claim_maps::ClaimMap>(out, report.maps, put_map);
}

ReproductionReport decode_report(ByteReader& in) {
  ReproductionReport report;
  report.comparisons = get_all<Comparison>(in, get_comparison);
  report.set_rows = get_all<Comparison>(in, get_comparison);
  report.claims = get_all<Claim>(in, get_claim);
  report.notes = in.get_string();
  report.tables = get_all<documents::ReportTable>(in, get_table);
  report.csv_tables = get_all<documents::ReportTable>(in, get_table);
  report.sweeps = get_all<Sweep>(in, get_sweep);
  report.maps = get_all<claim_maps::ClaimMap>(in, get_map);
  return report;
}

}  // namespace trainsim::reproductions
