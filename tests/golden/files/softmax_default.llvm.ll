define void @"fused_nn_softmax"(ptr noalias nonnull %"p0", ptr noalias nonnull %"softmax") nounwind
{
entry:
  %".4" = alloca [4 x float], align 64
  %".5" = alloca [4 x float], align 64
  br label %"body"
body:
  %".6" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".6", align 4
  br label %"softmax_maxelem_k.header"
softmax_maxelem_k.header:
  %"softmax_maxelem_k" = phi  i64 [0, %"body"], [%"softmax_maxelem_k.next", %"softmax_maxelem_k.body"]
  %".9" = icmp slt i64 %"softmax_maxelem_k", 40
  br i1 %".9", label %"softmax_maxelem_k.body", label %"softmax_maxelem_k.exit"
softmax_maxelem_k.body:
  %".11" = getelementptr inbounds float, ptr %".4", i64 0
  %".12" = load <4 x float>, ptr %".11", align 4
  %".13" = mul <4 x i64> <i64 0, i64 1, i64 2, i64 3>, <i64 40, i64 40, i64 40, i64 40>
  %".14" = insertelement <4 x i64> <i64 undef, i64 undef, i64 undef, i64 undef>, i64 %"softmax_maxelem_k", i32 0
  %".15" = shufflevector <4 x i64> %".14", <4 x i64> <i64 undef, i64 undef, i64 undef, i64 undef>, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
  %".16" = add <4 x i64> %".13", %".15"
  %".17" = getelementptr inbounds float, ptr %"p0", <4 x i64> %".16"
  %".18" = call <4 x float> @"llvm.masked.gather.v4f32.v4p0"(<4 x ptr> %".17", i32 4, <4 x i1> <i1 1, i1 1, i1 1, i1 1>, <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>)
  %".19" = fcmp ogt <4 x float> %".18", %".12"
  %".20" = select  <4 x i1> %".19", <4 x float> %".18", <4 x float> %".12"
  %".21" = fcmp uno <4 x float> %".18", %".18"
  %".22" = select  <4 x i1> %".21", <4 x float> %".18", <4 x float> %".20"
  %".23" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".22", ptr %".23", align 4
  %"softmax_maxelem_k.next" = add nsw i64 %"softmax_maxelem_k", 1
  br label %"softmax_maxelem_k.header"
softmax_maxelem_k.exit:
  %".26" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".26", align 4
  br label %"softmax_expsum_k.header"
softmax_expsum_k.header:
  %"softmax_expsum_k" = phi  i64 [0, %"softmax_maxelem_k.exit"], [%"softmax_expsum_k.next", %"softmax_expsum_k.body"]
  %".29" = icmp slt i64 %"softmax_expsum_k", 40
  br i1 %".29", label %"softmax_expsum_k.body", label %"softmax_expsum_k.exit"
softmax_expsum_k.body:
  %".31" = getelementptr inbounds float, ptr %".5", i64 0
  %".32" = load <4 x float>, ptr %".31", align 4
  %".33" = mul <4 x i64> <i64 0, i64 1, i64 2, i64 3>, <i64 40, i64 40, i64 40, i64 40>
  %".34" = insertelement <4 x i64> <i64 undef, i64 undef, i64 undef, i64 undef>, i64 %"softmax_expsum_k", i32 0
  %".35" = shufflevector <4 x i64> %".34", <4 x i64> <i64 undef, i64 undef, i64 undef, i64 undef>, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
  %".36" = add <4 x i64> %".33", %".35"
  %".37" = getelementptr inbounds float, ptr %"p0", <4 x i64> %".36"
  %".38" = call <4 x float> @"llvm.masked.gather.v4f32.v4p0"(<4 x ptr> %".37", i32 4, <4 x i1> <i1 1, i1 1, i1 1, i1 1>, <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>)
  %".39" = getelementptr inbounds float, ptr %".4", i64 0
  %".40" = load <4 x float>, ptr %".39", align 4
  %".41" = fsub contract <4 x float> %".38", %".40"
  %".42" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".41")
  %".43" = fadd contract <4 x float> %".32", %".42"
  %".44" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".43", ptr %".44", align 4
  %"softmax_expsum_k.next" = add nsw i64 %"softmax_expsum_k", 1
  br label %"softmax_expsum_k.header"
softmax_expsum_k.exit:
  br label %"softmax_i0.header"
softmax_i0.header:
  %"softmax_i0" = phi  i64 [0, %"softmax_expsum_k.exit"], [%"softmax_i0.next", %"softmax_i1_o.exit"]
  %".48" = icmp slt i64 %"softmax_i0", 4
  br i1 %".48", label %"softmax_i0.body", label %"softmax_i0.exit"
softmax_i0.body:
  br label %"softmax_i1_o.header"
softmax_i0.exit:
  ret void
softmax_i1_o.header:
  %"softmax_i1_o" = phi  i64 [0, %"softmax_i0.body"], [%"softmax_i1_o.next", %"softmax_i1_o.body"]
  %".51" = icmp slt i64 %"softmax_i1_o", 2
  br i1 %".51", label %"softmax_i1_o.body", label %"softmax_i1_o.exit"
softmax_i1_o.body:
  %".53" = mul i64 %"softmax_i0", 40
  %".54" = mul i64 %"softmax_i1_o", 16
  %".55" = add i64 %".53", %".54"
  %".56" = mul i64 %"softmax_i0", 40
  %".57" = mul i64 %"softmax_i1_o", 16
  %".58" = add i64 %".56", %".57"
  %".59" = getelementptr inbounds float, ptr %"p0", i64 %".58"
  %".60" = load <16 x float>, ptr %".59", align 4
  %".61" = getelementptr inbounds float, ptr %".4", i64 %"softmax_i0"
  %".62" = load float, ptr %".61", align 4
  %".63" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".62", i32 0
  %".64" = shufflevector <16 x float> %".63", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".65" = fsub contract <16 x float> %".60", %".64"
  %".66" = call <16 x float> @"llvm.exp.v16f32"(<16 x float> %".65")
  %".67" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".68" = load float, ptr %".67", align 4
  %".69" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".68", i32 0
  %".70" = shufflevector <16 x float> %".69", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".71" = fdiv <16 x float> %".66", %".70"
  %".72" = getelementptr inbounds float, ptr %"softmax", i64 %".55"
  store <16 x float> %".71", ptr %".72", align 4
  %"softmax_i1_o.next" = add nsw i64 %"softmax_i1_o", 1
  br label %"softmax_i1_o.header"
softmax_i1_o.exit:
  %".75" = mul i64 %"softmax_i0", 40
  %".76" = add i64 %".75", 32
  %".77" = mul i64 %"softmax_i0", 40
  %".78" = add i64 %".77", 32
  %".79" = getelementptr inbounds float, ptr %"p0", i64 %".78"
  %".80" = load <8 x float>, ptr %".79", align 4
  %".81" = getelementptr inbounds float, ptr %".4", i64 %"softmax_i0"
  %".82" = load float, ptr %".81", align 4
  %".83" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".82", i32 0
  %".84" = shufflevector <8 x float> %".83", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".85" = fsub contract <8 x float> %".80", %".84"
  %".86" = call <8 x float> @"llvm.exp.v8f32"(<8 x float> %".85")
  %".87" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".88" = load float, ptr %".87", align 4
  %".89" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".88", i32 0
  %".90" = shufflevector <8 x float> %".89", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".91" = fdiv <8 x float> %".86", %".90"
  %".92" = getelementptr inbounds float, ptr %"softmax", i64 %".76"
  store <8 x float> %".91", ptr %".92", align 4
  %"softmax_i0.next" = add nsw i64 %"softmax_i0", 1
  br label %"softmax_i0.header"
}

declare <4 x float> @"llvm.masked.gather.v4f32.v4p0"(<4 x ptr> %".1", i32 %".2", <4 x i1> %".3", <4 x float> %".4")

declare <4 x float> @"llvm.exp.v4f32"(<4 x float> %".1")

declare <16 x float> @"llvm.exp.v16f32"(<16 x float> %".1")

declare <8 x float> @"llvm.exp.v8f32"(<8 x float> %".1")

define void @"fused_nn_softmax_packed"(ptr %".1") nounwind
{
entry:
  %".3" = getelementptr inbounds ptr, ptr %".1", i64 0
  %".4" = load ptr, ptr %".3"
  %".5" = getelementptr inbounds ptr, ptr %".1", i64 1
  %".6" = load ptr, ptr %".5"
  call void @"fused_nn_softmax"(ptr %".4", ptr %".6")
  ret void
}
