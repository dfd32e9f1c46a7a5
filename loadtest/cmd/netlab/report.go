//go:build linux

package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// percentile of sorted values (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(len(sorted)-1, i))]
}

// series is one variant's measurements.
type series struct {
	Name   string
	Values []float64
}

func (s series) sorted() []float64 {
	v := slices.Clone(s.Values)
	slices.Sort(v)
	return v
}

// percentileTable renders p50/p75/p95/p99 per series, with the ratio of
// each p50 and p95 to the first series (the baseline).
func percentileTable(unit string, ss []series) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| variant | n | p50 %s | p75 %s | p95 %s | p99 %s | p50 vs %s | p95 vs %s |\n|---|---|---|---|---|---|---|---|\n",
		unit, unit, unit, unit, ss[0].Name, ss[0].Name)
	base := ss[0].sorted()
	for _, s := range ss {
		v := s.sorted()
		fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |\n", s.Name, len(v),
			percentile(v, 50), percentile(v, 75), percentile(v, 95), percentile(v, 99),
			percentile(v, 50)/percentile(base, 50), percentile(v, 95)/percentile(base, 95))
	}
	return b.String()
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// cdfSVG draws the cumulative distribution of each series.
func cdfSVG(title, xlabel string, ss []series) string {
	const w, h, left, bottom, top, right = 720, 420, 60, 50, 40, 200
	maxX := 0.0
	for _, s := range ss {
		for _, v := range s.Values {
			maxX = math.Max(maxX, v)
		}
	}
	maxX = niceCeil(maxX)
	px := func(x float64) float64 { return left + x/maxX*float64(w-left-right) }
	py := func(y float64) float64 { return float64(h-bottom) - y*float64(h-bottom-top) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`, w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%d" y="22" font-size="15">%s</text>`, left, esc(title))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`,
		left, h-bottom, w-right, h-bottom, left, top, left, h-bottom)
	for i := 0; i <= 5; i++ {
		x := maxX * float64(i) / 5
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%.0f</text>`, px(x), h-bottom+16, x)
		y := float64(i) / 5
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end">%.0f%%</text><line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="#eee"/>`,
			left-6, py(y)+4, y*100, left, py(y), w-right, py(y))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, (left+w-right)/2, h-12, esc(xlabel))
	for i, s := range ss {
		v := s.sorted()
		var pts []string
		for k, x := range v {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(x), py(float64(k+1)/float64(len(v)))))
		}
		c := palette[i%len(palette)]
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, c, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`,
			w-right+15, top+i*20, c, w-right+32, top+i*20+11, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// barSVG draws one bar per value.
func barSVG(title, ylabel string, names []string, values []float64) string {
	const w, h, left, bottom, top = 720, 400, 70, 90, 40
	maxY := 0.0
	for _, v := range values {
		maxY = math.Max(maxY, v)
	}
	maxY = niceCeil(maxY)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`, w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%d" y="22" font-size="15">%s</text>`, left, esc(title))
	slot := float64(w-left-20) / float64(len(values))
	for i := 0; i <= 5; i++ {
		y := maxY * float64(i) / 5
		yy := float64(h-bottom) - y/maxY*float64(h-bottom-top)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end">%.0f</text><line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="#eee"/>`, left-6, yy+4, y, left, yy, w-20, yy)
	}
	for i, v := range values {
		bh := v / maxY * float64(h-bottom-top)
		x := float64(left) + slot*float64(i) + slot*0.15
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="%s"/>`, x, float64(h-bottom)-bh, slot*0.7, bh, palette[i%len(palette)])
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">%.1f</text>`, x+slot*0.35, float64(h-bottom)-bh-4, v)
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`, x+slot*0.35, h-bottom+16, esc(names[i]))
	}
	fmt.Fprintf(&b, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">%s</text>`, (h-bottom+top)/2, (h-bottom+top)/2, esc(ylabel))
	b.WriteString("</svg>\n")
	return b.String()
}

func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// writeResult writes <out>/<name>.md (and any SVGs) with the command and
// date on top and, when the experiment ran the edge, that binary's build
// (go version -m), so two results say which edges they compared.
func (r *runner) writeResult(name, title, body string, svgs map[string]string) error {
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	for file, svg := range svgs {
		if err := os.WriteFile(filepath.Join(r.out, file), []byte(svg), 0o644); err != nil {
			return err
		}
	}
	md := fmt.Sprintf("# %s\n\nMeasured %s on this project's machine kind (2 cores) with:\n\n```sh\n%s\n```\n\n%s",
		title, time.Now().UTC().Format("2006-01-02 15:04 UTC"), r.command(), body)
	if r.edge.build != "" {
		md += fmt.Sprintf("\n## The edge binary\n\n`go version -m %s`:\n\n```\n%s```\n", r.edge.path, r.edge.build)
	}
	path := filepath.Join(r.out, name+".md")
	fmt.Println("wrote", path)
	return os.WriteFile(path, []byte(md), 0o644)
}
