package main

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// chart is a figure against size: one line per metric, one point per size that was measured.
type chart struct {
	File, Title, X, Y string
	Bench             string // a format with %d for the size
	Sizes             []int
	Lines             []chartLine
	LinearY           bool // a y axis from 0, for a figure that grows by less than tenfold
}

type chartLine struct{ Name, Unit string }

// draw writes the chart as SVG into dir. Sizes grow tenfold, so the x axis is logarithmic, and
// the y axis too unless LinearY. It returns false when no size was measured, and draws nothing.
func (c *chart) draw(dir string, results map[string]result) (bool, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text, p.Y.Label.Text = c.X, c.Y
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	if c.LinearY {
		p.Y.Min = 0
	} else {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	p.Legend.Top, p.Legend.Left = true, true
	var lines []any
	for _, line := range c.Lines {
		var points plotter.XYs
		for _, size := range c.Sizes {
			if v, ok := results[fmt.Sprintf(c.Bench, size)].Metrics[line.Unit]; ok && v > 0 {
				points = append(points, plotter.XY{X: float64(size), Y: v})
			}
		}
		if len(points) > 0 {
			lines = append(lines, line.Name, points)
		}
	}
	if len(lines) == 0 {
		return false, nil
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return false, err
	}
	return true, p.Save(6*vg.Inch, 4*vg.Inch, filepath.Join(dir, c.File))
}
