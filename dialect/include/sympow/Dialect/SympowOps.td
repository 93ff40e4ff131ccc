//===- SympowOps.td - Operations of the sympow dialect -----*- tablegen -*-===//
//
// Tensor-level ops. `sympow.layer` is a whole layer as SPEC defines it; the
// others are the pieces the decomposition rewrites it into. Every op checks
// the shape, dtype and configuration rules of SPEC in its verifier.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_DIALECT_SYMPOWOPS_TD
#define SYMPOW_DIALECT_SYMPOWOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sympow/Dialect/SympowBase.td"
include "sympow/Dialect/SympowAttrs.td"

class Sympow_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sympow_Dialect, mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

// Element types are checked in the verifiers, which name the operand and what
// is allowed; the ODS constraints only ask for ranked tensors.
defvar Tensor = AnyRankedTensor;

// p: an even power >= 2 (checked by the verifier with a message).
defvar PowerAttr = I64Attr;

//===----------------------------------------------------------------------===//
// sympow.layer
//===----------------------------------------------------------------------===//

def Sympow_LayerOp : Sympow_Op<"layer", [AttrSizedOperandSegments]> {
  let summary = "a whole symmetric power attention layer";
  let description = [{
    The layer of SPEC, attention formulation as its definition:

    ```
    G_t  = sum_{s<=t} (log_g[s] + log_gamma)
    B_ij = exp(G_i - G_j) * (scale * (R(a_ij) q_i) . k_j)^p      (j <= i)
    y_i  = sum_j B_ij v_j / sum_j B_ij
    ```

    with `a_ij = c_i - c_j` for the `uniform` and `learned` schedules and
    `w(i - j)` for `warped` and `blend`. GQA: query head `hq` reads key/value
    head `hq / (Hq / H)`. The optional `initial_state` is `(S0, Z0, c0)`; when
    the op has four results the last three are the final state `(S, Z, c)`
    in the SPEC's phi order. `scale` defaults to `1/sqrt(d)`, `schedule` to
    `none`; `formulation` is a request (absent: the compiler chooses).

    ```mlir
    %y, %s, %z, %c = sympow.layer power = 2
        q(%q : tensor<2x256x8x64xbf16>) k(%k : tensor<2x256x4x64xbf16>)
        v(%v : tensor<2x256x4x64xbf16>) log_g(%g : tensor<2x256x4xf32>)
        beta(%b : tensor<2x256x4xf32>) rotary = <dims = 64>
        schedule = <learned> formulation = <chunked, chunk = 64>
        -> tensor<2x256x8x64xbf16>,
           tensor<2x4x2080x64xf32>, tensor<2x4x2080xf32>, tensor<2x4xf32>
    ```
  }];
  let arguments = (ins
    Tensor:$q, Tensor:$k, Tensor:$v,
    Optional<Tensor>:$log_g,
    Optional<Tensor>:$log_gamma,
    Optional<Tensor>:$beta,
    Variadic<Tensor>:$initial_state,
    PowerAttr:$power,
    OptionalAttr<F64Attr>:$scale,
    OptionalAttr<Sympow_RotaryAttr>:$rotary,
    OptionalAttr<Sympow_ScheduleAttr>:$schedule,
    OptionalAttr<Sympow_FormulationAttr>:$formulation
  );
  let results = (outs Tensor:$y, Variadic<Tensor>:$final_state);
  let assemblyFormat = [{
    `power` `=` $power
    (`scale` `=` $scale^)?
    `q` `(` $q `:` type($q) `)`
    `k` `(` $k `:` type($k) `)`
    `v` `(` $v `:` type($v) `)`
    (`log_g` `(` $log_g^ `:` type($log_g) `)`)?
    (`log_gamma` `(` $log_gamma^ `:` type($log_gamma) `)`)?
    (`beta` `(` $beta^ `:` type($beta) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    (`rotary` `=` $rotary^)?
    (`schedule` `=` $schedule^)?
    (`formulation` `=` $formulation^)?
    attr-dict `->` type($y) (`,` type($final_state)^)?
  }];
  let extraClassDeclaration = [{
    /// The schedule, `none` when absent.
    ScheduleKind getScheduleKind();
    /// Which gates the layer applies, from the operands present.
    GateKind getGateKind();
    /// The scale on q.k: the attribute, else 1/sqrt(d).
    double getScaleOrDefault();
    bool hasInitialState() { return !getInitialState().empty(); }
    bool hasFinalState() { return !getFinalState().empty(); }
  }];
}

//===----------------------------------------------------------------------===//
// sympow.embed
//===----------------------------------------------------------------------===//

def Sympow_EmbedOp : Sympow_Op<"embed"> {
  let summary = "symmetric power embedding phi^p";
  let description = [{
    Maps the last dimension `d` of `input` to `D = C(d + p - 1, p)`
    coordinates, one per multiset `i1 <= ... <= ip` of `{0..d-1}` in
    lexicographic order: `sqrt(p! / prod m_k!) * x_i1 * ... * x_ip`, so that
    `phi(x) . phi(y) = (x . y)^p`.

    ```mlir
    %e = sympow.embed power = 2 %k : tensor<2x64x4x16xf32> -> tensor<2x64x4x136xf32>
    ```
  }];
  let arguments = (ins Tensor:$input, PowerAttr:$power);
  let results = (outs Tensor:$result);
  let assemblyFormat = [{
    `power` `=` $power $input attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// sympow.rotate and sympow.angle_count
//===----------------------------------------------------------------------===//

def Sympow_RotateOp : Sympow_Op<"rotate"> {
  let summary = "apply rotary positions by angle counts";
  let description = [{
    `input [B, T, Hx, d]` rotated by `R(counts[b, t, h / (Hx / Hc)])` with
    `counts [B, T, Hc]` (Hc divides Hx: query heads of a GQA group share the
    counts of their key/value head). Pair j of the rotated dims turns by
    `counts * theta_j`. f64 counts keep long sequences exact.

    ```mlir
    %r = sympow.rotate %q by %c rotary = <dims = 64>
        : tensor<2x64x8x64xf32>, tensor<2x64x4xf64> -> tensor<2x64x8x64xf32>
    ```
  }];
  let arguments = (ins Tensor:$input, Tensor:$counts,
                       Sympow_RotaryAttr:$rotary);
  let results = (outs Tensor:$result);
  let assemblyFormat = [{
    $input `by` $counts `rotary` `=` $rotary attr-dict `:` type($input) `,`
    type($counts) `->` type($result)
  }];
}

def Sympow_AngleCountOp : Sympow_Op<"angle_count",
                                    [AttrSizedOperandSegments]> {
  let summary = "cumulative rotation angle count";
  let description = [{
    `uniform`: `c_t = c_0 + t + 1`; `learned`: `c_t = c_0 + sum_{s<=t} beta_s`.
    `beta [B, T, H]` (learned only), `initial [B, H]` (c_0, zero when absent),
    result `[B, T, H]`, accumulated in f64 as SPEC asks for long sequences.

    ```mlir
    %c = sympow.angle_count schedule = <learned> beta(%b : tensor<2x64x4xf32>)
        -> tensor<2x64x4xf64>
    ```
  }];
  let arguments = (ins Optional<Tensor>:$beta, Optional<Tensor>:$initial,
                       Sympow_ScheduleAttr:$schedule);
  let results = (outs Tensor:$result);
  let assemblyFormat = [{
    `schedule` `=` $schedule
    (`beta` `(` $beta^ `:` type($beta) `)`)?
    (`initial` `(` $initial^ `:` type($initial) `)`)?
    attr-dict `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// State ops: update, query, scan
//===----------------------------------------------------------------------===//

def Sympow_StateUpdateOp : Sympow_Op<"state_update",
                                     [AttrSizedOperandSegments]> {
  let summary = "gated state update from a block of keys and values";
  let description = [{
    For a block of C tokens (keys already rotated), with
    `G_j = sum_{s<=j} log_g[s]` inside the block:

    ```
    S' = exp(G_C) S + sum_j exp(G_C - G_j) phi(k_j) (x) v_j
    Z' = exp(G_C) Z + sum_j exp(G_C - G_j) phi(k_j)
    ```

    `keys [B, C, H, d]`, `values [B, C, H, e]`, `log_g [B, C, H]` (the total
    log gate per token; no decay when absent), `S [B, H, D, e]`,
    `Z [B, H, D]`. Without `S`/`Z` the block's own contribution is returned
    (both results start from zero). With C = 1 this is the recurrent step.

    ```mlir
    %s1, %z1 = sympow.state_update power = 2
        keys(%k : tensor<1x16x2x8xf32>) values(%v : tensor<1x16x2x8xf32>)
        -> tensor<1x2x36x8xf32>, tensor<1x2x36xf32>
    ```
  }];
  let arguments = (ins Tensor:$keys, Tensor:$values,
                       Optional<Tensor>:$log_g,
                       Optional<Tensor>:$state_s, Optional<Tensor>:$state_z,
                       PowerAttr:$power);
  let results = (outs Tensor:$result_s, Tensor:$result_z);
  let assemblyFormat = [{
    `power` `=` $power
    `keys` `(` $keys `:` type($keys) `)`
    `values` `(` $values `:` type($values) `)`
    (`log_g` `(` $log_g^ `:` type($log_g) `)`)?
    (`state` `(` $state_s^ `,` $state_z `:` type($state_s) `,`
               type($state_z) `)`)?
    attr-dict `->` type($result_s) `,` type($result_z)
  }];
}

def Sympow_StateQueryOp : Sympow_Op<"state_query"> {
  let summary = "query a state with a block of queries";
  let description = [{
    The state's share of the output for a block of C queries (already
    rotated), with `G_i = sum_{s<=i} log_g[s]` inside the block:

    ```
    numerator_i   = exp(G_i) * S^T phi(scale * q_i)
    denominator_i = exp(G_i) * Z . phi(scale * q_i)
    ```

    `queries [B, C, Hq, d]`, `log_g [B, C, H]`, `S [B, H, D, e]`,
    `Z [B, H, D]`; results `[B, C, Hq, e]` and `[B, C, Hq]` in f32.

    ```mlir
    %n, %d = sympow.state_query power = 2 scale = 0.35355339059327379
        queries(%q : tensor<1x16x4x8xf32>)
        state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
        -> tensor<1x16x4x8xf32>, tensor<1x16x4xf32>
    ```
  }];
  let arguments = (ins Tensor:$queries, Optional<Tensor>:$log_g,
                       Tensor:$state_s, Tensor:$state_z,
                       PowerAttr:$power, F64Attr:$scale);
  let results = (outs Tensor:$numerator, Tensor:$denominator);
  let assemblyFormat = [{
    `power` `=` $power `scale` `=` $scale
    `queries` `(` $queries `:` type($queries) `)`
    (`log_g` `(` $log_g^ `:` type($log_g) `)`)?
    `state` `(` $state_s `,` $state_z `:` type($state_s) `,` type($state_z) `)`
    attr-dict `->` type($numerator) `,` type($denominator)
  }];
}

def Sympow_DiscountedScanOp : Sympow_Op<"discounted_scan",
                                        [AllTypesMatch<["deltas", "prefix"]>,
                                         AllTypesMatch<["final", "initial"]>]> {
  let summary = "discounted prefix scan over chunk states";
  let description = [{
    `prefix[:, n] = exp(log_decay[:, n-1]) * prefix[:, n-1] + deltas[:, n-1]`
    with `prefix[:, 0] = initial`: the state in force before each chunk
    (exclusive scan), and `final` the state after the last chunk.
    `deltas [B, N, H, ...]` are the chunks' own contributions,
    `log_decay [B, N, H]` each chunk's total log gate, `initial [B, H, ...]`.

    ```mlir
    %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
        : tensor<1x4x2x36x8xf32>, tensor<1x4x2xf32>, tensor<1x2x36x8xf32>
    ```
  }];
  let arguments = (ins Tensor:$deltas, Tensor:$log_decay, Tensor:$initial);
  let results = (outs Tensor:$prefix, Tensor:$final);
  let assemblyFormat = [{
    $deltas `decay` $log_decay `initial` $initial attr-dict `:`
    type($deltas) `,` type($log_decay) `,` type($initial)
  }];
}

//===----------------------------------------------------------------------===//
// sympow.attention_block
//===----------------------------------------------------------------------===//

def Sympow_AttentionBlockOp : Sympow_Op<"attention_block"> {
  let summary = "causal gated attention over a block, in log space";
  let description = [{
    Queries `[B, Cq, Hq, d]` against keys `[B, Ck, H, d]` and values
    `[B, Ck, H, e]`, query i sitting at key position `Ck - Cq + i` (causal).
    With `G` the cumulative sum of `log_g [B, Ck, H]` over the block, the
    log-space score is

    ```
    s_ij = G_i - G_j + p * log|scale * (R(w(i - j)) q_i) . k_j|
    ```

    and the results are `numerator_i = sum_j exp(s_ij - m_i) v_j`,
    `denominator_i = sum_j exp(s_ij - m_i)` and the running maximum `m_i`
    (f32), so blocks and states combine without overflow. The relative
    rotation `R(w(i - j))` is applied only for the `warped` and `blend`
    schedules (`rotary` and `schedule` given); uniform and learned rotations
    are applied to q and k beforehand by `sympow.rotate`.

    ```mlir
    %n, %d, %m = sympow.attention_block power = 2 scale = 0.125
        queries(%q : tensor<1x64x4x64xbf16>) keys(%k : tensor<1x64x2x64xbf16>)
        values(%v : tensor<1x64x2x64xbf16>)
        -> tensor<1x64x4x64xf32>, tensor<1x64x4xf32>, tensor<1x64x4xf32>
    ```
  }];
  let arguments = (ins Tensor:$queries, Tensor:$keys, Tensor:$values,
                       Optional<Tensor>:$log_g,
                       PowerAttr:$power, F64Attr:$scale,
                       OptionalAttr<Sympow_RotaryAttr>:$rotary,
                       OptionalAttr<Sympow_ScheduleAttr>:$schedule);
  let results = (outs Tensor:$numerator, Tensor:$denominator,
                      Tensor:$log_max);
  let assemblyFormat = [{
    `power` `=` $power `scale` `=` $scale
    `queries` `(` $queries `:` type($queries) `)`
    `keys` `(` $keys `:` type($keys) `)`
    `values` `(` $values `:` type($values) `)`
    (`log_g` `(` $log_g^ `:` type($log_g) `)`)?
    (`rotary` `=` $rotary^)?
    (`schedule` `=` $schedule^)?
    attr-dict `->` type($numerator) `,` type($denominator) `,` type($log_max)
  }];
}

//===----------------------------------------------------------------------===//
// sympow.combine
//===----------------------------------------------------------------------===//

def Sympow_CombineOp : Sympow_Op<"combine", [AttrSizedOperandSegments]> {
  let summary = "normalise attention-block and state contributions into y";
  let description = [{
    The output of a block of queries from its parts: the attention block's
    `(numerator, denominator, log_max)` (scaled by `exp(-log_max)`) and the
    state's `(numerator, denominator)` (unscaled):

    ```
    y = (n_a + exp(-m) n_s) / (d_a + exp(-m) d_s)      (0 where the sum is 0)
    ```

    Either part may be absent. Shapes `[B, C, Hq, e]` for numerators and
    `[B, C, Hq]` for the others; `y` has the element type of the layer's v.

    ```mlir
    %y = sympow.combine block(%n, %d, %m : tensor<1x64x4x32xf32>,
        tensor<1x64x4xf32>, tensor<1x64x4xf32>)
        state(%ns, %ds : tensor<1x64x4x32xf32>, tensor<1x64x4xf32>)
        -> tensor<1x64x4x32xbf16>
    ```
  }];
  let arguments = (ins Variadic<Tensor>:$block, Variadic<Tensor>:$state);
  let results = (outs Tensor:$result);
  let assemblyFormat = [{
    (`block` `(` $block^ `:` type($block) `)`)?
    (`state` `(` $state^ `:` type($state) `)`)?
    attr-dict `->` type($result)
  }];
}

#endif // SYMPOW_DIALECT_SYMPOWOPS_TD
