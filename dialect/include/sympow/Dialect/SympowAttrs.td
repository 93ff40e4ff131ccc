//===- SympowAttrs.td - Attributes of the sympow dialect ---*- tablegen -*-===//

#ifndef SYMPOW_DIALECT_SYMPOWATTRS_TD
#define SYMPOW_DIALECT_SYMPOWATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "sympow/Dialect/SympowBase.td"
include "sympow/Dialect/SympowEnums.td"

class Sympow_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Sympow_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// An f64 value written as a plain number (no type suffix), printed so that
// it round-trips exactly.
class Sympow_DoubleParameter<string desc, string default>
    : DefaultValuedParameter<"::llvm::APFloat", "::llvm::APFloat(" # default # ")",
                             desc> {
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    double value;
    if ($_parser.parseFloat(value))
      return ::mlir::failure();
    return ::llvm::APFloat(value);
  }() }];
  let printer = [{ $_printer << $_self }];
}

//===----------------------------------------------------------------------===//
// Enum attributes
//===----------------------------------------------------------------------===//

class Sympow_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Sympow_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Sympow_RotaryLayoutAttr : Sympow_EnumAttr<Sympow_RotaryLayout, "layout">;
def Sympow_GateKindAttr : Sympow_EnumAttr<Sympow_GateKind, "gate">;
def Sympow_ElementKindAttr : Sympow_EnumAttr<Sympow_ElementKind, "dtype">;

//===----------------------------------------------------------------------===//
// Rotary configuration
//===----------------------------------------------------------------------===//

def Sympow_RotaryAttr : Sympow_Attr<"Rotary", "rotary"> {
  let summary = "rotary position configuration";
  let description = [{
    The rates are `theta_j = rate_scale * base^(-2j/dims)` for
    `j = 0 .. dims/2 - 1`; pair j of a vector is rotated by the angle
    `a * theta_j` for an angle count `a`. `dims` is the number of rotated
    dimensions (even, at most the head dim d; the rest pass through) and
    `layout` says which dims form a pair. RoPE is `base = 10000`,
    `rate_scale = 1`; the sympow papers use `base = N`, `rate_scale = 2*pi`.

    ```mlir
    #sympow.rotary<dims = 64>
    #sympow.rotary<base = 65536.0, rate_scale = 6.2831853071795862, dims = 32, layout = half>
    ```
  }];
  let parameters = (ins
    Sympow_DoubleParameter<"base of the geometric rate sequence", "10000.0">:$base,
    Sympow_DoubleParameter<"factor on every rate", "1.0">:$rate_scale,
    "int64_t":$dims,
    DefaultValuedParameter<"::sympow::RotaryLayout",
                           "::sympow::RotaryLayout::Interleaved",
                           "which dims form a pair">:$layout
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    double getBaseValue() const { return getBase().convertToDouble(); }
    double getRateScaleValue() const {
      return getRateScale().convertToDouble();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Angle schedule
//===----------------------------------------------------------------------===//

def Sympow_ScheduleAttr : Sympow_Attr<"Schedule", "schedule"> {
  let summary = "angle count schedule";
  let description = [{
    How the rotation angle count grows (see `ScheduleKind`). `warped` and
    `blend` take the typical length `L` (`length`): warped
    `w(a) = L*a / (a + L)`, blend `w(a) = a` below L and
    `L + L*(a - L)/a` from L on.

    ```mlir
    #sympow.schedule<learned>
    #sympow.schedule<warped, length = 4096>
    ```
  }];
  let parameters = (ins
    EnumParameter<Sympow_ScheduleKind>:$kind,
    OptionalParameter<"std::optional<int64_t>",
                      "typical length L of warped and blend">:$length
  );
  let assemblyFormat = "`<` $kind (`,` `length` `=` $length^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Warped and blend angles depend on the age i - j only: they have no
    /// finite recurrent form.
    bool isRelativeOnly() const {
      return getKind() == ScheduleKind::Warped ||
             getKind() == ScheduleKind::Blend;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Formulation
//===----------------------------------------------------------------------===//

def Sympow_FormulationAttr : Sympow_Attr<"Formulation", "formulation"> {
  let summary = "how a layer is computed";
  let description = [{
    `attention`, `recurrent`, or `chunked` with a chunk size C (`chunk`).

    ```mlir
    #sympow.formulation<attention>
    #sympow.formulation<chunked, chunk = 64>
    ```
  }];
  let parameters = (ins
    EnumParameter<Sympow_FormulationKind>:$kind,
    OptionalParameter<"std::optional<int64_t>",
                      "chunk size C of the chunked formulation">:$chunk
  );
  let assemblyFormat = "`<` $kind (`,` `chunk` `=` $chunk^)? `>`";
  let genVerifyDecl = 1;
}

#endif // SYMPOW_DIALECT_SYMPOWATTRS_TD
