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
  %".19" = fcmp ogt <4 x float> %".12", %".18"
  %".20" = select  <4 x i1> %".19", <4 x float> %".12", <4 x float> %".18"
  %".21" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".20", ptr %".21", align 4
  %"softmax_maxelem_k.next" = add nsw i64 %"softmax_maxelem_k", 1
  br label %"softmax_maxelem_k.header"
softmax_maxelem_k.exit:
  %".24" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".24", align 4
  br label %"softmax_expsum_k.header"
softmax_expsum_k.header:
  %"softmax_expsum_k" = phi  i64 [0, %"softmax_maxelem_k.exit"], [%"softmax_expsum_k.next", %"softmax_expsum_k.body"]
  %".27" = icmp slt i64 %"softmax_expsum_k", 40
  br i1 %".27", label %"softmax_expsum_k.body", label %"softmax_expsum_k.exit"
softmax_expsum_k.body:
  %".29" = getelementptr inbounds float, ptr %".5", i64 0
  %".30" = load <4 x float>, ptr %".29", align 4
  %".31" = mul <4 x i64> <i64 0, i64 1, i64 2, i64 3>, <i64 40, i64 40, i64 40, i64 40>
  %".32" = insertelement <4 x i64> <i64 undef, i64 undef, i64 undef, i64 undef>, i64 %"softmax_expsum_k", i32 0
  %".33" = shufflevector <4 x i64> %".32", <4 x i64> <i64 undef, i64 undef, i64 undef, i64 undef>, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
  %".34" = add <4 x i64> %".31", %".33"
  %".35" = getelementptr inbounds float, ptr %"p0", <4 x i64> %".34"
  %".36" = call <4 x float> @"llvm.masked.gather.v4f32.v4p0"(<4 x ptr> %".35", i32 4, <4 x i1> <i1 1, i1 1, i1 1, i1 1>, <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>)
  %".37" = getelementptr inbounds float, ptr %".4", i64 0
  %".38" = load <4 x float>, ptr %".37", align 4
  %".39" = fsub contract <4 x float> %".36", %".38"
  %".40" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".39")
  %".41" = fadd contract <4 x float> %".30", %".40"
  %".42" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".41", ptr %".42", align 4
  %"softmax_expsum_k.next" = add nsw i64 %"softmax_expsum_k", 1
  br label %"softmax_expsum_k.header"
softmax_expsum_k.exit:
  br label %"softmax_i0.header"
softmax_i0.header:
  %"softmax_i0" = phi  i64 [0, %"softmax_expsum_k.exit"], [%"softmax_i0.next", %"softmax_i1_o.exit"]
  %".46" = icmp slt i64 %"softmax_i0", 4
  br i1 %".46", label %"softmax_i0.body", label %"softmax_i0.exit"
softmax_i0.body:
  br label %"softmax_i1_o.header"
softmax_i0.exit:
  ret void
softmax_i1_o.header:
  %"softmax_i1_o" = phi  i64 [0, %"softmax_i0.body"], [%"softmax_i1_o.next", %"softmax_i1_o.body"]
  %".49" = icmp slt i64 %"softmax_i1_o", 2
  br i1 %".49", label %"softmax_i1_o.body", label %"softmax_i1_o.exit"
softmax_i1_o.body:
  %".51" = mul i64 %"softmax_i0", 40
  %".52" = mul i64 %"softmax_i1_o", 16
  %".53" = add i64 %".51", %".52"
  %".54" = mul i64 %"softmax_i0", 40
  %".55" = mul i64 %"softmax_i1_o", 16
  %".56" = add i64 %".54", %".55"
  %".57" = getelementptr inbounds float, ptr %"p0", i64 %".56"
  %".58" = load <16 x float>, ptr %".57", align 4
  %".59" = getelementptr inbounds float, ptr %".4", i64 %"softmax_i0"
  %".60" = load float, ptr %".59", align 4
  %".61" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".60", i32 0
  %".62" = shufflevector <16 x float> %".61", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".63" = fsub contract <16 x float> %".58", %".62"
  %".64" = call <16 x float> @"llvm.exp.v16f32"(<16 x float> %".63")
  %".65" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".66" = load float, ptr %".65", align 4
  %".67" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".66", i32 0
  %".68" = shufflevector <16 x float> %".67", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".69" = fdiv <16 x float> %".64", %".68"
  %".70" = getelementptr inbounds float, ptr %"softmax", i64 %".53"
  store <16 x float> %".69", ptr %".70", align 4
  %"softmax_i1_o.next" = add nsw i64 %"softmax_i1_o", 1
  br label %"softmax_i1_o.header"
softmax_i1_o.exit:
  %".73" = mul i64 %"softmax_i0", 40
  %".74" = add i64 %".73", 32
  %".75" = mul i64 %"softmax_i0", 40
  %".76" = add i64 %".75", 32
  %".77" = getelementptr inbounds float, ptr %"p0", i64 %".76"
  %".78" = load <8 x float>, ptr %".77", align 4
  %".79" = getelementptr inbounds float, ptr %".4", i64 %"softmax_i0"
  %".80" = load float, ptr %".79", align 4
  %".81" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".80", i32 0
  %".82" = shufflevector <8 x float> %".81", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".83" = fsub contract <8 x float> %".78", %".82"
  %".84" = call <8 x float> @"llvm.exp.v8f32"(<8 x float> %".83")
  %".85" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".86" = load float, ptr %".85", align 4
  %".87" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".86", i32 0
  %".88" = shufflevector <8 x float> %".87", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".89" = fdiv <8 x float> %".84", %".88"
  %".90" = getelementptr inbounds float, ptr %"softmax", i64 %".74"
  store <8 x float> %".89", ptr %".90", align 4
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
