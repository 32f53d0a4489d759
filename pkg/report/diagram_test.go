package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// TestRectColourLegible: the label of a flagged arrow stays readable on the
// rect behind it in Mermaid's default (light) theme and in its dark theme, on
// a white page and on GitHub's dark page: WCAG contrast of at least 4.5.
func TestRectColourLegible(t *testing.T) {
	themes := []struct {
		name       string
		text, page [3]float64
	}{
		{"light theme on white", [3]float64{0x33, 0x33, 0x33}, [3]float64{255, 255, 255}},
		{"dark theme on GitHub dark", [3]float64{0xcc, 0xcc, 0xcc}, [3]float64{0x0d, 0x11, 0x17}},
		{"dark theme on its own background", [3]float64{0xcc, 0xcc, 0xcc}, [3]float64{0x33, 0x33, 0x33}},
	}
	for _, sev := range []rule.Severity{rule.SeverityError, rule.SeverityWarning, rule.SeverityInfo} {
		colour := rectColour(sev)
		var r, g, b, a float64
		if n, _ := fmt.Sscanf(colour, "rgba(%g, %g, %g, %g)", &r, &g, &b, &a); n != 4 {
			a = 1
			if n, _ := fmt.Sscanf(colour, "rgb(%g, %g, %g)", &r, &g, &b); n != 3 {
				t.Fatalf("%s: rect colour %q is neither rgb() nor rgba()", sev, colour)
			}
		}
		for _, th := range themes {
			var bg [3]float64
			for i, c := range [3]float64{r, g, b} {
				bg[i] = a*c + (1-a)*th.page[i]
			}
			if got := contrast(th.text, bg); got < 4.5 {
				t.Errorf("%s rect %s, %s: label contrast %.2f, want at least 4.5", sev, colour, th.name, got)
			}
		}
	}
}

// contrast is the WCAG 2 contrast ratio of two sRGB colours (0-255).
func contrast(x, y [3]float64) float64 {
	lx, ly := luminance(x), luminance(y)
	return (max(lx, ly) + 0.05) / (min(lx, ly) + 0.05)
}

func luminance(c [3]float64) float64 {
	var l [3]float64
	for i, v := range c {
		v /= 255
		if v <= 0.03928 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}
