#pragma once
// A sweep that a reproduction fills: one parameter varied (hidden size, batch), a few ratios
// measured at each value, printed as a table by `trainsim validate --sweeps`, and a table, a CSV
// file and a gnuplot plot of the reproduction's report (`trainsim report NAME`).

#include <string>
#include <vector>

#include "documents/gnuplot_plot.hpp"

namespace trainsim::reproductions {

struct SweepSeries {
  std::string name;            ///< "training 2D/1D"
  std::vector<double> values;  ///< parallel to Sweep::xs; NaN where it could not be measured
};

/// A published figure placed at the stated configuration, drawn on the plot.
struct SweepReference {
  double x = 0.0;
  double y = 0.0;
  std::string label;  ///< "1.48x (configuration unknown)"; printed after "published "
};

struct Sweep {
  std::string id;       ///< file stem of the plot ("sweep-hidden")
  std::string title;    ///< what is varied and what is fixed
  std::string x_label;  ///< "hidden size"
  std::string y_label;  ///< "speedup (x)"
  bool log_x = true;
  std::vector<double> xs;
  std::vector<SweepSeries> series;
  std::vector<std::string> row_notes;  ///< parallel to xs (may be empty): "1D over memory"
  std::vector<SweepReference> references;

  /// Adds a row: x, one value per series (in series order) and a note.
  void add_row(double x, const std::vector<double>& values, std::string note = {});

  /// A text table: x, one column per series, the note.
  std::string format() const;
  /// The plot: one series per column, the references as markers.
  documents::PlotSpec plot() const;
};

}  // namespace trainsim::reproductions
