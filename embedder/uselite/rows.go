package uselite

import (
	"math"
)

// Row operations between the products: softmax over attention scores and
// layer norm. Each reduction keeps four independent partial sums, because
// a single running sum is bound by the adder's latency (one element per
// 3-4 cycles), which made these rows a visible part of the encoder's time.

// softmax sets row to softmax(scale * row).
func softmax(row []float32, scale float32) {
	m := float32(math.Inf(-1))
	for i := range row {
		row[i] *= scale
		m = max(m, row[i])
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(row); i += 4 {
		r := row[i : i+4 : i+4]
		r[0], r[1], r[2], r[3] = exp32(r[0]-m), exp32(r[1]-m), exp32(r[2]-m), exp32(r[3]-m)
		s0 += r[0]
		s1 += r[1]
		s2 += r[2]
		s3 += r[3]
	}
	for ; i < len(row); i++ {
		row[i] = exp32(row[i] - m)
		s0 += row[i]
	}
	inv := 1 / ((s0 + s1) + (s2 + s3))
	for i := range row {
		row[i] *= inv
	}
}

// exp32 is e^x for x <= 0 to within a few float32 ulps: x = n ln2 + r with
// |r| <= ln2/2, e^r by its Taylor series to r^7 (error < 2e-9), times 2^n.
// math.Exp in float64 was most of softmax's time.
func exp32(x float32) float32 {
	if x < -87 { // below the smallest normal float32: 0 is within an ulp of the weights' use
		return 0
	}
	const (
		log2e = 1.44269504088896341
		ln2hi = 0.693145751953125 // ln2 split so n*ln2hi is exact for |n| < 2^8
		ln2lo = 1.42860682030941723212e-6
	)
	n := float32(math.Floor(float64(x*log2e + 0.5)))
	r := (x - n*ln2hi) - n*ln2lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// layerNorm normalises each row of x (rows x d) into y: (x - mean) /
// sqrt(var + eps) * scale + bias, mean and variance in float64.
func layerNorm(x []float32, rows, d int, scale, bias []float32, eps float32, y []float32) {
	for r := range rows {
		xr := x[r*d:][:d]
		yr := y[r*d:][:d]
		var a0, a1, a2, a3 float64
		j := 0
		for ; j+4 <= d; j += 4 {
			v := xr[j : j+4 : j+4]
			a0 += float64(v[0])
			a1 += float64(v[1])
			a2 += float64(v[2])
			a3 += float64(v[3])
		}
		for ; j < d; j++ {
			a0 += float64(xr[j])
		}
		mean := ((a0 + a1) + (a2 + a3)) / float64(d)
		a0, a1, a2, a3 = 0, 0, 0, 0
		j = 0
		for ; j+4 <= d; j += 4 {
			v := xr[j : j+4 : j+4]
			d0, d1, d2, d3 := float64(v[0])-mean, float64(v[1])-mean, float64(v[2])-mean, float64(v[3])-mean
			a0 += d0 * d0
			a1 += d1 * d1
			a2 += d2 * d2
			a3 += d3 * d3
		}
		for ; j < d; j++ {
			dv := float64(xr[j]) - mean
			a0 += dv * dv
		}
		inv := float32(1 / math.Sqrt(((a0+a1)+(a2+a3))/float64(d)+float64(eps)))
		m32 := float32(mean)
		for j, v := range xr {
			yr[j] = (v-m32)*inv*scale[j] + bias[j]
		}
	}
}
