package uselite

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

const (
	pApply = "module_apply_default/Encoder_en/KonaTransformer/"
	pVars  = "module/Encoder_en/KonaTransformer/"
)

// layer is one transformer layer. Layer 0 maps 256 -> 512: its attention
// works at 256 and its residual goes through a dense 256->512 on the
// un-normalised input. Layer 1 is 512 throughout.
type layer struct {
	dIn, dAtt, dOut, heads int
	scale                  float32
	lnS, lnB               []float32 // pre-attention layer norm (dIn)
	qkvW, qkvB             []float32 // dIn x 3*dAtt
	outW, outB             []float32 // dAtt x dOut
	resW, resB             []float32 // dIn x dOut, nil when the residual is the identity
	ffnS, ffnB             []float32 // pre-FFN layer norm (dOut)
	ff1W, ff1B             []float32 // dOut x dFF
	ff2W, ff2B             []float32 // dFF x dOut
	dFF                    int
	// The weight matrices above, packed for the gemm kernel.
	qkv, out, res, ff1, ff2 *matrix
}

// network is the whole encoder.
type network struct {
	emb    []float32 // vocab x dEmb
	vocab  int
	dEmb   int
	maxLen int
	timing []float32 // maxLen x dEmb sinusoid table
	eps    float32
	layers []layer
	tanhW  []float32 // dOut x dOut
	tanhB  []float32
	tanh   *matrix
	l2Eps  float32
	dOut   int
}

func loadNetwork(g *graph, kern *kernel) (*network, error) {
	// Topology facts the forward pass relies on.
	for name, op := range map[string]string{
		pApply + "Encode/TransformerStack/Layer_0/add":                                               "Add",
		pApply + "Encode/TransformerStack/Layer_0/AddTimingSignal/add":                               "Add",
		pApply + "Encode/TransformerStack/Layer_0/TransformerLayer/AdjustResidualInput/dense/MatMul": "MatMul",
		pApply + "Encode/TransformerStack/Layer_1/TransformerLayer/layer_postprocess/add":            "Add",
		pApply + "div": "RealDiv",
		"module_apply_default/Encoder_en/hidden_layers/tanh_layer_0/Tanh": "Tanh",
	} {
		if g.ops[name] != op {
			return nil, fmt.Errorf("model.json: graph lacks %s node %q; this is not the expected USE-lite graph", op, name)
		}
	}
	n := &network{}
	emb, err := g.get("module/Embeddings_en")
	if err != nil {
		return nil, err
	}
	if len(emb.shape) != 2 {
		return nil, fmt.Errorf("model.json: embeddings have shape %v, want 2-D", emb.shape)
	}
	n.emb, n.vocab, n.dEmb = emb.data, emb.shape[0], emb.shape[1]
	maxLen, err := g.scalar(pApply + "ClipToMaxLength/Less/y")
	if err != nil {
		return nil, err
	}
	n.maxLen = int(maxLen)
	inv, err := g.get(pApply+"Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 1, n.dEmb/2)
	if err != nil {
		return nil, err
	}
	// Timing signal as the graph builds it: float32 position x inverse
	// timescale, then [sin | cos].
	half := n.dEmb / 2
	n.timing = make([]float32, n.maxLen*n.dEmb)
	for p := 0; p < n.maxLen; p++ {
		for j := range half {
			a := float64(float32(p) * inv.data[j])
			n.timing[p*n.dEmb+j] = float32(math.Sin(a))
			n.timing[p*n.dEmb+half+j] = float32(math.Cos(a))
		}
	}
	if n.eps, err = g.scalar(pApply + "Encode/TransformerStack/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x"); err != nil {
		return nil, err
	}
	if n.l2Eps, err = g.scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"); err != nil {
		return nil, err
	}
	dIn := n.dEmb
	for i := 0; i < 2; i++ {
		l, err := loadLayer(g, i, dIn)
		if err != nil {
			return nil, err
		}
		l.qkv = newMatrix(l.qkvW, l.dIn, 3*l.dAtt, kern)
		l.out = newMatrix(l.outW, l.dAtt, l.dOut, kern)
		if l.resW != nil {
			l.res = newMatrix(l.resW, l.dIn, l.dOut, kern)
		}
		l.ff1 = newMatrix(l.ff1W, l.dOut, l.dFF, kern)
		l.ff2 = newMatrix(l.ff2W, l.dFF, l.dOut, kern)
		n.layers = append(n.layers, l)
		dIn = l.dOut
	}
	n.dOut = dIn
	tw, err := g.get("module/Encoder_en/hidden_layers/tanh_layer_0/weights", n.dOut, n.dOut)
	if err != nil {
		return nil, err
	}
	tb, err := g.get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", n.dOut)
	if err != nil {
		return nil, err
	}
	n.tanhW, n.tanhB = tw.data, tb.data
	n.tanh = newMatrix(n.tanhW, n.dOut, n.dOut, kern)
	return n, nil
}

func loadLayer(g *graph, i, dIn int) (layer, error) {
	l := layer{dIn: dIn}
	var firstErr error
	get := func(name string, shape ...int) tensor {
		t, err := g.get(name, shape...)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return t
	}
	enc := fmt.Sprintf("%sEncode/Layer_%d/TransformerLayer/", pApply, i)
	stack := fmt.Sprintf("%sEncode/TransformerStack/Layer_%d/TransformerLayer/", pApply, i)
	vars := fmt.Sprintf("%sEncode/Layer_%d/TransformerLayer/", pVars, i)
	const concat = "/ConcatPartitions/concat"

	qkv := get(vars + "MultiheadAttention/qkv_transform_single/kernel/part_0")
	if firstErr != nil {
		return l, firstErr
	}
	if len(qkv.shape) != 4 || qkv.shape[2] != dIn || qkv.shape[3]%3 != 0 {
		return l, fmt.Errorf("model.json: layer %d qkv kernel has shape %v, want [1 1 %d 3*d]", i, qkv.shape, dIn)
	}
	l.dAtt = qkv.shape[3] / 3
	out := get(vars + "MultiheadAttention/output_transform_single/kernel/part_0")
	if firstErr != nil {
		return l, firstErr
	}
	if len(out.shape) != 4 || out.shape[2] != l.dAtt {
		return l, fmt.Errorf("model.json: layer %d output kernel has shape %v", i, out.shape)
	}
	l.dOut = out.shape[3]
	l.qkvW, l.outW = qkv.data, out.data
	l.qkvB = get(enc+"MultiheadAttention/qkv_transform_single/bias"+concat, 3*l.dAtt).data
	l.outB = get(enc+"MultiheadAttention/output_transform_single/bias"+concat, l.dOut).data
	l.lnS = get(enc+"layer_prepostprocess/layer_norm/layer_norm_scale"+concat, dIn).data
	l.lnB = get(enc+"layer_prepostprocess/layer_norm/layer_norm_bias"+concat, dIn).data
	l.ffnS = get(enc+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale"+concat, l.dOut).data
	l.ffnB = get(enc+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias"+concat, l.dOut).data
	ff1 := get(stack + "FFN/conv1/Tensordot/Reshape_1")
	if firstErr != nil {
		return l, firstErr
	}
	if len(ff1.shape) != 2 || ff1.shape[0] != l.dOut {
		return l, fmt.Errorf("model.json: layer %d FFN conv1 has shape %v", i, ff1.shape)
	}
	l.dFF = ff1.shape[1]
	l.ff1W = ff1.data
	l.ff1B = get(enc+"FFN/conv1/bias"+concat, l.dFF).data
	l.ff2W = get(stack+"FFN/conv2/Tensordot/Reshape_1", l.dFF, l.dOut).data
	l.ff2B = get(enc+"FFN/conv2/bias"+concat, l.dOut).data
	hd, err := g.scalar(stack + "MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3")
	if err != nil {
		return l, err
	}
	if hd <= 0 || l.dAtt%int(hd) != 0 {
		return l, fmt.Errorf("model.json: layer %d head width %v does not divide %d", i, hd, l.dAtt)
	}
	l.heads = l.dAtt / int(hd)
	if l.scale, err = g.scalar(stack + "MultiheadAttention/mul/y"); err != nil {
		return l, err
	}
	if dIn != l.dOut {
		// Only present where the width changes (layer 0).
		l.resW = get(enc+"dense/kernel"+concat, dIn, l.dOut).data
		l.resB = get(enc+"dense/bias"+concat, l.dOut).data
	}
	return l, firstErr
}

// span is one sentence's rows in a batch matrix.
type span struct{ off, n int }

// forward embeds a batch of token-id sequences (each already clipped to
// maxLen). Sentences are stacked row-wise without padding, so the dense
// layers run as one matrix product per batch and attention runs per
// sentence; this equals the padded reference because its padding is masked
// with -1e9 before the softmax.
func (n *network) forward(batch [][]int) [][]float32 {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	spans := make([]span, len(batch))
	T := 0
	for i, ids := range batch {
		spans[i] = span{T, len(ids)}
		T += len(ids)
	}
	// Input: the graph adds the embedding twice (once directly, once inside
	// AddTimingSignal) plus the timing signal.
	d := n.dEmb
	x := sc.buf(slotInput, T*d)
	for i, ids := range batch {
		for p, id := range ids {
			row := x[(spans[i].off+p)*d:][:d]
			e := n.emb[id*d:][:d]
			t := n.timing[p*d:][:d]
			for j := range row {
				row[j] = e[j] + (e[j] + t[j])
			}
		}
	}
	h := x
	for li := range n.layers {
		h = n.layers[li].apply(h, T, spans, n.eps, sc, slotLayerOut+li%2)
	}
	// Mean pool, tanh dense, L2 normalise.
	B := len(batch)
	pooled := sc.buf(slotPooled, B*n.dOut)
	clear(pooled)
	for i, s := range spans {
		dst := pooled[i*n.dOut:][:n.dOut]
		for p := 0; p < s.n; p++ {
			row := h[(s.off+p)*n.dOut:][:n.dOut]
			for j, v := range row {
				dst[j] += v
			}
		}
		inv := 1 / float32(max(s.n, 1))
		for j := range dst {
			dst[j] *= inv
		}
	}
	y := make([]float32, B*n.dOut)
	n.tanh.dense(pooled, B, y, n.tanhB)
	out := make([][]float32, B)
	for i := range B {
		v := y[i*n.dOut:][:n.dOut]
		var ss float64
		for j, a := range v {
			t := float32(math.Tanh(float64(a)))
			v[j] = t
			ss += float64(t) * float64(t)
		}
		inv := float32(1 / math.Sqrt(math.Max(ss, float64(n.l2Eps))))
		for j := range v {
			v[j] *= inv
		}
		out[i] = v
	}
	return out
}

// scratch holds a forward pass's intermediate matrices, reused across
// batches: fresh ones cost page faults and zeroing comparable to the
// products themselves once those are fast.
type scratch struct{ bufs [slots][]float32 }

const (
	slotInput = iota
	slotLayerOut
	slotLayerOut2 // layers alternate between the two output slots
	slotNorm
	slotQKV
	slotAtt
	slotMid
	slotPooled
	slotKT // attention on the kernel: packed K^T, packed V, scores, zeros
	slotVP
	slotScores
	slotZero
	slots
)

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// buf returns slot i with n elements; its contents are left over.
func (s *scratch) buf(i, n int) []float32 {
	if cap(s.bufs[i]) < n {
		s.bufs[i] = make([]float32, n)
	}
	return s.bufs[i][:n]
}

// apply runs one layer on x (T x dIn) and returns T x dOut, in slot out of
// sc (which must not hold x).
func (l *layer) apply(x []float32, T int, spans []span, eps float32, sc *scratch, out int) []float32 {
	// Residual path: identity, or a dense layer on the un-normalised input.
	h := sc.buf(out, T*l.dOut)
	if l.resW != nil {
		l.res.dense(x, T, h, l.resB)
	} else {
		copy(h, x)
	}
	// Attention on the normalised input.
	xn := sc.buf(slotNorm, T*l.dIn)
	layerNorm(x, T, l.dIn, l.lnS, l.lnB, eps, xn)
	qkv := sc.buf(slotQKV, T*3*l.dAtt)
	l.qkv.dense(xn, T, qkv, l.qkvB)
	att := sc.buf(slotAtt, T*l.dAtt)
	if kern := l.qkv.kern; kern != nil && kern.whole == nil && (l.dAtt/l.heads)%kern.nr == 0 {
		l.attendKernel(kern, qkv, att, spans, sc)
	} else {
		l.attend(qkv, att, spans)
	}
	// h += att . outW + outB
	addBias(h, T, l.outB)
	l.out.mulAdd(att, T, h)
	// Feed-forward block with its own pre-norm and residual.
	hn := sc.buf(slotNorm, T*l.dOut) // xn is spent by now
	layerNorm(h, T, l.dOut, l.ffnS, l.ffnB, eps, hn)
	mid := sc.buf(slotMid, T*l.dFF)
	l.ff1.dense(hn, T, mid, l.ff1B)
	for i, v := range mid {
		if v < 0 {
			mid[i] = 0
		}
	}
	addBias(h, T, l.ff2B)
	l.ff2.mulAdd(mid, T, h)
	return h
}

// attend computes multi-head self-attention per sentence, reading q, k, v
// as strided views of the qkv matrix and writing heads side by side.
func (l *layer) attend(qkv, att []float32, spans []span) {
	dh := l.dAtt / l.heads
	stride := 3 * l.dAtt
	var scores []float32
	for _, s := range spans {
		if s.n == 0 {
			continue
		}
		if cap(scores) < s.n*s.n {
			scores = make([]float32, s.n*s.n)
		}
		sc := blas32.General{Rows: s.n, Cols: s.n, Stride: s.n, Data: scores[:s.n*s.n]}
		base := s.off * stride
		for hd := 0; hd < l.heads; hd++ {
			q := blas32.General{Rows: s.n, Cols: dh, Stride: stride, Data: qkv[base+hd*dh:]}
			k := blas32.General{Rows: s.n, Cols: dh, Stride: stride, Data: qkv[base+l.dAtt+hd*dh:]}
			v := blas32.General{Rows: s.n, Cols: dh, Stride: stride, Data: qkv[base+2*l.dAtt+hd*dh:]}
			blas32.Gemm(blas.NoTrans, blas.Trans, l.scale, q, k, 0, sc)
			for r := 0; r < s.n; r++ {
				softmax(sc.Data[r*s.n:][:s.n], 1) // scaled by the product
			}
			o := blas32.General{Rows: s.n, Cols: dh, Stride: l.dAtt, Data: att[s.off*l.dAtt+hd*dh:]}
			blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, sc, v, 0, o)
		}
	}
}

func addBias(y []float32, rows int, b []float32) {
	out := len(b)
	for r := range rows {
		yr := y[r*out:][:out]
		for j, v := range b {
			yr[j] += v
		}
	}
}
