define void @"fused_nn_max_pool2d"(ptr noalias nonnull %"p0", ptr noalias nonnull %"max_pool2d") nounwind
{
entry:
  br label %"body"
body:
  br label %"max_pool2d_n_c_f_y_f.header"
max_pool2d_n_c_f_y_f.header:
  %"max_pool2d_n_c_f_y_f" = phi  i64 [0, %"body"], [%"max_pool2d_n_c_f_y_f.next", %"max_pool2d_ry.exit"]
  %".5" = icmp slt i64 %"max_pool2d_n_c_f_y_f", 15
  br i1 %".5", label %"max_pool2d_n_c_f_y_f.body", label %"max_pool2d_n_c_f_y_f.exit"
max_pool2d_n_c_f_y_f.body:
  %".7" = mul i64 %"max_pool2d_n_c_f_y_f", 5
  %".8" = getelementptr inbounds float, ptr %"max_pool2d", i64 %".7"
  store <5 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".8", align 4
  br label %"max_pool2d_ry.header"
max_pool2d_n_c_f_y_f.exit:
  ret void
max_pool2d_ry.header:
  %"max_pool2d_ry" = phi  i64 [0, %"max_pool2d_n_c_f_y_f.body"], [%"max_pool2d_ry.next", %"max_pool2d_rx.exit"]
  %".11" = icmp slt i64 %"max_pool2d_ry", 3
  br i1 %".11", label %"max_pool2d_ry.body", label %"max_pool2d_ry.exit"
max_pool2d_ry.body:
  br label %"max_pool2d_rx.header"
max_pool2d_ry.exit:
  %"max_pool2d_n_c_f_y_f.next" = add nsw i64 %"max_pool2d_n_c_f_y_f", 1
  br label %"max_pool2d_n_c_f_y_f.header"
max_pool2d_rx.header:
  %"max_pool2d_rx" = phi  i64 [0, %"max_pool2d_ry.body"], [%"max_pool2d_rx.next", %"max_pool2d_rx.body"]
  %".14" = icmp slt i64 %"max_pool2d_rx", 3
  br i1 %".14", label %"max_pool2d_rx.body", label %"max_pool2d_rx.exit"
max_pool2d_rx.body:
  %".16" = mul i64 %"max_pool2d_n_c_f_y_f", 5
  %".17" = mul i64 %"max_pool2d_n_c_f_y_f", 5
  %".18" = getelementptr inbounds float, ptr %"max_pool2d", i64 %".17"
  %".19" = load <5 x float>, ptr %".18", align 4
  %".20" = urem i64 %"max_pool2d_n_c_f_y_f", 5
  %".21" = mul i64 %".20", 2
  %".22" = add i64 %".21", %"max_pool2d_ry"
  %".23" = icmp sge i64 %".22", 1
  %".24" = urem i64 %"max_pool2d_n_c_f_y_f", 5
  %".25" = mul i64 %".24", 2
  %".26" = add i64 %".25", %"max_pool2d_ry"
  %".27" = icmp slt i64 %".26", 10
  %".28" = and i1 %".23", %".27"
  %".29" = mul <5 x i64> <i64 0, i64 1, i64 2, i64 3, i64 4>, <i64 2, i64 2, i64 2, i64 2, i64 2>
  %".30" = insertelement <5 x i64> <i64 undef, i64 undef, i64 undef, i64 undef, i64 undef>, i64 %"max_pool2d_rx", i32 0
  %".31" = shufflevector <5 x i64> %".30", <5 x i64> <i64 undef, i64 undef, i64 undef, i64 undef, i64 undef>, <5 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0>
  %".32" = add <5 x i64> %".29", %".31"
  %".33" = icmp sge <5 x i64> %".32", <i64 1, i64 1, i64 1, i64 1, i64 1>
  %".34" = mul <5 x i64> <i64 0, i64 1, i64 2, i64 3, i64 4>, <i64 2, i64 2, i64 2, i64 2, i64 2>
  %".35" = insertelement <5 x i64> <i64 undef, i64 undef, i64 undef, i64 undef, i64 undef>, i64 %"max_pool2d_rx", i32 0
  %".36" = shufflevector <5 x i64> %".35", <5 x i64> <i64 undef, i64 undef, i64 undef, i64 undef, i64 undef>, <5 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0>
  %".37" = add <5 x i64> %".34", %".36"
  %".38" = icmp slt <5 x i64> %".37", <i64 10, i64 10, i64 10, i64 10, i64 10>
  %".39" = and <5 x i1> %".33", %".38"
  %".40" = insertelement <5 x i1> <i1 undef, i1 undef, i1 undef, i1 undef, i1 undef>, i1 %".28", i32 0
  %".41" = shufflevector <5 x i1> %".40", <5 x i1> <i1 undef, i1 undef, i1 undef, i1 undef, i1 undef>, <5 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0>
  %".42" = and <5 x i1> %".41", %".39"
  %".43" = udiv i64 %"max_pool2d_n_c_f_y_f", 5
  %".44" = mul i64 %".43", 81
  %".45" = urem i64 %"max_pool2d_n_c_f_y_f", 5
  %".46" = mul i64 %".45", 18
  %".47" = add i64 %".44", %".46"
  %".48" = mul i64 %"max_pool2d_ry", 9
  %".49" = add i64 %".47", %".48"
  %".50" = add i64 %".49", %"max_pool2d_rx"
  %".51" = sub i64 %".50", 10
  %".52" = shufflevector <5 x i1> %".42", <5 x i1> <i1 0, i1 0, i1 0, i1 0, i1 0>, <8 x i32> <i32 0, i32 5, i32 1, i32 5, i32 2, i32 5, i32 3, i32 5>
  %".53" = getelementptr inbounds float, ptr %"p0", i64 %".51"
  %".54" = call <8 x float> @"llvm.masked.load.v8f32.p0"(ptr %".53", i32 4, <8 x i1> %".52", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>)
  %".55" = add i64 %".51", 1
  %".56" = shufflevector <5 x i1> %".42", <5 x i1> <i1 0, i1 0, i1 0, i1 0, i1 0>, <8 x i32> <i32 5, i32 5, i32 5, i32 5, i32 5, i32 5, i32 5, i32 4>
  %".57" = getelementptr inbounds float, ptr %"p0", i64 %".55"
  %".58" = call <8 x float> @"llvm.masked.load.v8f32.p0"(ptr %".57", i32 4, <8 x i1> %".56", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>)
  %".59" = shufflevector <8 x float> %".54", <8 x float> %".58", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %".60" = shufflevector <16 x float> %".59", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <5 x i32> <i32 0, i32 2, i32 4, i32 6, i32 15>
  %".61" = xor <5 x i1> %".42", <i1 1, i1 1, i1 1, i1 1, i1 1>
  %".62" = select  <5 x i1> %".42", <5 x float> %".60", <5 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>
  %".63" = fcmp ogt <5 x float> %".62", %".19"
  %".64" = select  <5 x i1> %".63", <5 x float> %".62", <5 x float> %".19"
  %".65" = fcmp uno <5 x float> %".62", %".62"
  %".66" = select  <5 x i1> %".65", <5 x float> %".62", <5 x float> %".64"
  %".67" = getelementptr inbounds float, ptr %"max_pool2d", i64 %".16"
  store <5 x float> %".66", ptr %".67", align 4
  %"max_pool2d_rx.next" = add nsw i64 %"max_pool2d_rx", 1
  br label %"max_pool2d_rx.header"
max_pool2d_rx.exit:
  %"max_pool2d_ry.next" = add nsw i64 %"max_pool2d_ry", 1
  br label %"max_pool2d_ry.header"
}

declare <8 x float> @"llvm.masked.load.v8f32.p0"(ptr %".1", i32 %".2", <8 x i1> %".3", <8 x float> %".4")

define void @"fused_nn_max_pool2d_packed"(ptr %".1") nounwind
{
entry:
  %".3" = getelementptr inbounds ptr, ptr %".1", i64 0
  %".4" = load ptr, ptr %".3"
  %".5" = getelementptr inbounds ptr, ptr %".1", i64 1
  %".6" = load ptr, ptr %".5"
  call void @"fused_nn_max_pool2d"(ptr %".4", ptr %".6")
  ret void
}
