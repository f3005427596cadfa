define void @"fused_nn_conv2d_add_nn_relu"(ptr noalias nonnull %"p0", ptr noalias nonnull %"p1", ptr noalias nonnull %"p2", ptr noalias nonnull %"relu") nounwind
{
entry:
  %".6" = alloca [400 x float], align 64
  %".35" = alloca {ptr, ptr, ptr, ptr, i64}
  br label %"body"
body:
  br label %"pad_i0_i1_f_i2_f.header"
pad_i0_i1_f_i2_f.header:
  %"pad_i0_i1_f_i2_f" = phi  i64 [0, %"body"], [%"pad_i0_i1_f_i2_f.next", %"pad_i0_i1_f_i2_f.body"]
  %".8" = icmp slt i64 %"pad_i0_i1_f_i2_f", 40
  br i1 %".8", label %"pad_i0_i1_f_i2_f.body", label %"pad_i0_i1_f_i2_f.exit"
pad_i0_i1_f_i2_f.body:
  %".10" = mul i64 %"pad_i0_i1_f_i2_f", 10
  %".11" = urem i64 %"pad_i0_i1_f_i2_f", 10
  %".12" = icmp sge i64 %".11", 1
  %".13" = urem i64 %"pad_i0_i1_f_i2_f", 10
  %".14" = icmp slt i64 %".13", 9
  %".15" = and i1 %".12", %".14"
  %".16" = icmp sge <10 x i64> <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7, i64 8, i64 9>, <i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1, i64 1>
  %".17" = icmp slt <10 x i64> <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7, i64 8, i64 9>, <i64 9, i64 9, i64 9, i64 9, i64 9, i64 9, i64 9, i64 9, i64 9, i64 9>
  %".18" = and <10 x i1> %".16", %".17"
  %".19" = insertelement <10 x i1> <i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef>, i1 %".15", i32 0
  %".20" = shufflevector <10 x i1> %".19", <10 x i1> <i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef, i1 undef>, <10 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".21" = and <10 x i1> %".20", %".18"
  %".22" = udiv i64 %"pad_i0_i1_f_i2_f", 10
  %".23" = mul i64 %".22", 64
  %".24" = urem i64 %"pad_i0_i1_f_i2_f", 10
  %".25" = mul i64 %".24", 8
  %".26" = add i64 %".23", %".25"
  %".27" = sub i64 %".26", 9
  %".28" = getelementptr inbounds float, ptr %"p0", i64 %".27"
  %".29" = call <10 x float> @"llvm.masked.load.v10f32.p0"(ptr %".28", i32 4, <10 x i1> %".21", <10 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>)
  %".30" = xor <10 x i1> %".21", <i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1>
  %".31" = select  <10 x i1> %".21", <10 x float> %".29", <10 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".32" = getelementptr inbounds float, ptr %".6", i64 %".10"
  store <10 x float> %".31", ptr %".32", align 4
  %"pad_i0_i1_f_i2_f.next" = add nsw i64 %"pad_i0_i1_f_i2_f", 1
  br label %"pad_i0_i1_f_i2_f.header"
pad_i0_i1_f_i2_f.exit:
  %".36" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".35", i32 0, i32 0
  store ptr %"p1", ptr %".36"
  %".38" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".35", i32 0, i32 1
  store ptr %"p2", ptr %".38"
  %".40" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".35", i32 0, i32 2
  store ptr %".6", ptr %".40"
  %".42" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".35", i32 0, i32 3
  store ptr %"relu", ptr %".42"
  %".44" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".35", i32 0, i32 4
  store i64 8, ptr %".44"
  call void @"GOMP_parallel"(void (ptr)* @"fused_nn_conv2d_add_nn_relu_parallel0", ptr %".35", i32 2, i32 0)
  ret void
}

declare <10 x float> @"llvm.masked.load.v10f32.p0"(ptr %".1", i32 %".2", <10 x i1> %".3", <10 x float> %".4")

define internal void @"fused_nn_conv2d_add_nn_relu_parallel0_body"(ptr noalias nonnull %".1", ptr noalias nonnull %".2", ptr noalias nonnull %".3", ptr noalias nonnull %".4", i64 %".5", i64 %".6") nounwind
{
entry:
  %".11" = alloca [64 x float], align 64
  br label %"body"
body:
  br label %"relu_i0_i1_o_f_i2_f.header"
relu_i0_i1_o_f_i2_f.header:
  %"relu_i0_i1_o_f_i2_f" = phi  i64 [%".5", %"body"], [%"relu_i0_i1_o_f_i2_f.next", %"conv2d_rc.exit"]
  %".9" = icmp slt i64 %"relu_i0_i1_o_f_i2_f", %".6"
  br i1 %".9", label %"relu_i0_i1_o_f_i2_f.body", label %"relu_i0_i1_o_f_i2_f.exit"
relu_i0_i1_o_f_i2_f.body:
  %".12" = mul i64 0, 8
  %".13" = getelementptr inbounds float, ptr %".11", i64 %".12"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".13", align 4
  %".15" = mul i64 1, 8
  %".16" = getelementptr inbounds float, ptr %".11", i64 %".15"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".16", align 4
  %".18" = mul i64 2, 8
  %".19" = getelementptr inbounds float, ptr %".11", i64 %".18"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".19", align 4
  %".21" = mul i64 3, 8
  %".22" = getelementptr inbounds float, ptr %".11", i64 %".21"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".22", align 4
  %".24" = mul i64 4, 8
  %".25" = getelementptr inbounds float, ptr %".11", i64 %".24"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".25", align 4
  %".27" = mul i64 5, 8
  %".28" = getelementptr inbounds float, ptr %".11", i64 %".27"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".28", align 4
  %".30" = mul i64 6, 8
  %".31" = getelementptr inbounds float, ptr %".11", i64 %".30"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".31", align 4
  %".33" = mul i64 7, 8
  %".34" = getelementptr inbounds float, ptr %".11", i64 %".33"
  store <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".34", align 4
  br label %"conv2d_rc.header"
relu_i0_i1_o_f_i2_f.exit:
  ret void
conv2d_rc.header:
  %"conv2d_rc" = phi  i64 [0, %"relu_i0_i1_o_f_i2_f.body"], [%"conv2d_rc.next", %"conv2d_ry.exit"]
  %".37" = icmp slt i64 %"conv2d_rc", 4
  br i1 %".37", label %"conv2d_rc.body", label %"conv2d_rc.exit"
conv2d_rc.body:
  br label %"conv2d_ry.header"
conv2d_rc.exit:
  %".256" = mul i64 0, 8
  %".257" = add i64 %".256", 0
  %".258" = getelementptr inbounds float, ptr %".11", i64 %".257"
  %".259" = load <8 x float>, ptr %".258", align 4
  %".260" = mul i64 1, 8
  %".261" = add i64 %".260", 0
  %".262" = getelementptr inbounds float, ptr %".11", i64 %".261"
  %".263" = load <8 x float>, ptr %".262", align 4
  %".264" = mul i64 2, 8
  %".265" = add i64 %".264", 0
  %".266" = getelementptr inbounds float, ptr %".11", i64 %".265"
  %".267" = load <8 x float>, ptr %".266", align 4
  %".268" = mul i64 3, 8
  %".269" = add i64 %".268", 0
  %".270" = getelementptr inbounds float, ptr %".11", i64 %".269"
  %".271" = load <8 x float>, ptr %".270", align 4
  %".272" = mul i64 4, 8
  %".273" = add i64 %".272", 0
  %".274" = getelementptr inbounds float, ptr %".11", i64 %".273"
  %".275" = load <8 x float>, ptr %".274", align 4
  %".276" = mul i64 5, 8
  %".277" = add i64 %".276", 0
  %".278" = getelementptr inbounds float, ptr %".11", i64 %".277"
  %".279" = load <8 x float>, ptr %".278", align 4
  %".280" = mul i64 6, 8
  %".281" = add i64 %".280", 0
  %".282" = getelementptr inbounds float, ptr %".11", i64 %".281"
  %".283" = load <8 x float>, ptr %".282", align 4
  %".284" = mul i64 7, 8
  %".285" = add i64 %".284", 0
  %".286" = getelementptr inbounds float, ptr %".11", i64 %".285"
  %".287" = load <8 x float>, ptr %".286", align 4
  %".288" = shufflevector <8 x float> %".259", <8 x float> %".263", <8 x i32> <i32 0, i32 8, i32 2, i32 10, i32 4, i32 12, i32 6, i32 14>
  %".289" = shufflevector <8 x float> %".259", <8 x float> %".263", <8 x i32> <i32 1, i32 9, i32 3, i32 11, i32 5, i32 13, i32 7, i32 15>
  %".290" = shufflevector <8 x float> %".267", <8 x float> %".271", <8 x i32> <i32 0, i32 8, i32 2, i32 10, i32 4, i32 12, i32 6, i32 14>
  %".291" = shufflevector <8 x float> %".267", <8 x float> %".271", <8 x i32> <i32 1, i32 9, i32 3, i32 11, i32 5, i32 13, i32 7, i32 15>
  %".292" = shufflevector <8 x float> %".275", <8 x float> %".279", <8 x i32> <i32 0, i32 8, i32 2, i32 10, i32 4, i32 12, i32 6, i32 14>
  %".293" = shufflevector <8 x float> %".275", <8 x float> %".279", <8 x i32> <i32 1, i32 9, i32 3, i32 11, i32 5, i32 13, i32 7, i32 15>
  %".294" = shufflevector <8 x float> %".283", <8 x float> %".287", <8 x i32> <i32 0, i32 8, i32 2, i32 10, i32 4, i32 12, i32 6, i32 14>
  %".295" = shufflevector <8 x float> %".283", <8 x float> %".287", <8 x i32> <i32 1, i32 9, i32 3, i32 11, i32 5, i32 13, i32 7, i32 15>
  %".296" = shufflevector <8 x float> %".288", <8 x float> %".290", <8 x i32> <i32 0, i32 1, i32 8, i32 9, i32 4, i32 5, i32 12, i32 13>
  %".297" = shufflevector <8 x float> %".288", <8 x float> %".290", <8 x i32> <i32 2, i32 3, i32 10, i32 11, i32 6, i32 7, i32 14, i32 15>
  %".298" = shufflevector <8 x float> %".289", <8 x float> %".291", <8 x i32> <i32 0, i32 1, i32 8, i32 9, i32 4, i32 5, i32 12, i32 13>
  %".299" = shufflevector <8 x float> %".289", <8 x float> %".291", <8 x i32> <i32 2, i32 3, i32 10, i32 11, i32 6, i32 7, i32 14, i32 15>
  %".300" = shufflevector <8 x float> %".292", <8 x float> %".294", <8 x i32> <i32 0, i32 1, i32 8, i32 9, i32 4, i32 5, i32 12, i32 13>
  %".301" = shufflevector <8 x float> %".292", <8 x float> %".294", <8 x i32> <i32 2, i32 3, i32 10, i32 11, i32 6, i32 7, i32 14, i32 15>
  %".302" = shufflevector <8 x float> %".293", <8 x float> %".295", <8 x i32> <i32 0, i32 1, i32 8, i32 9, i32 4, i32 5, i32 12, i32 13>
  %".303" = shufflevector <8 x float> %".293", <8 x float> %".295", <8 x i32> <i32 2, i32 3, i32 10, i32 11, i32 6, i32 7, i32 14, i32 15>
  %".304" = shufflevector <8 x float> %".296", <8 x float> %".300", <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 8, i32 9, i32 10, i32 11>
  %".305" = shufflevector <8 x float> %".296", <8 x float> %".300", <8 x i32> <i32 4, i32 5, i32 6, i32 7, i32 12, i32 13, i32 14, i32 15>
  %".306" = shufflevector <8 x float> %".298", <8 x float> %".302", <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 8, i32 9, i32 10, i32 11>
  %".307" = shufflevector <8 x float> %".298", <8 x float> %".302", <8 x i32> <i32 4, i32 5, i32 6, i32 7, i32 12, i32 13, i32 14, i32 15>
  %".308" = shufflevector <8 x float> %".297", <8 x float> %".301", <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 8, i32 9, i32 10, i32 11>
  %".309" = shufflevector <8 x float> %".297", <8 x float> %".301", <8 x i32> <i32 4, i32 5, i32 6, i32 7, i32 12, i32 13, i32 14, i32 15>
  %".310" = shufflevector <8 x float> %".299", <8 x float> %".303", <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 8, i32 9, i32 10, i32 11>
  %".311" = shufflevector <8 x float> %".299", <8 x float> %".303", <8 x i32> <i32 4, i32 5, i32 6, i32 7, i32 12, i32 13, i32 14, i32 15>
  %".312" = shufflevector <8 x float> %".304", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".313" = shufflevector <8 x float> %".306", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".314" = shufflevector <8 x float> %".308", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".315" = shufflevector <8 x float> %".310", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".316" = shufflevector <8 x float> %".305", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".317" = shufflevector <8 x float> %".307", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".318" = shufflevector <8 x float> %".309", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".319" = shufflevector <8 x float> %".311", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %".320" = mul i64 0, 64
  %".321" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".322" = add i64 %".320", %".321"
  %".323" = getelementptr inbounds float, ptr %".2", i64 0
  %".324" = load float, ptr %".323", align 4
  %".325" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".324", i32 0
  %".326" = shufflevector <8 x float> %".325", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".327" = fadd contract <8 x float> %".312", %".326"
  %".328" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".327"
  %".329" = select  <8 x i1> %".328", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".327"
  %".330" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".331" = select  <8 x i1> %".330", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".329"
  %".332" = getelementptr inbounds float, ptr %".4", i64 %".322"
  store <8 x float> %".331", ptr %".332", align 4
  %".334" = mul i64 1, 64
  %".335" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".336" = add i64 %".334", %".335"
  %".337" = getelementptr inbounds float, ptr %".2", i64 1
  %".338" = load float, ptr %".337", align 4
  %".339" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".338", i32 0
  %".340" = shufflevector <8 x float> %".339", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".341" = fadd contract <8 x float> %".313", %".340"
  %".342" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".341"
  %".343" = select  <8 x i1> %".342", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".341"
  %".344" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".345" = select  <8 x i1> %".344", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".343"
  %".346" = getelementptr inbounds float, ptr %".4", i64 %".336"
  store <8 x float> %".345", ptr %".346", align 4
  %".348" = mul i64 2, 64
  %".349" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".350" = add i64 %".348", %".349"
  %".351" = getelementptr inbounds float, ptr %".2", i64 2
  %".352" = load float, ptr %".351", align 4
  %".353" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".352", i32 0
  %".354" = shufflevector <8 x float> %".353", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".355" = fadd contract <8 x float> %".314", %".354"
  %".356" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".355"
  %".357" = select  <8 x i1> %".356", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".355"
  %".358" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".359" = select  <8 x i1> %".358", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".357"
  %".360" = getelementptr inbounds float, ptr %".4", i64 %".350"
  store <8 x float> %".359", ptr %".360", align 4
  %".362" = mul i64 3, 64
  %".363" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".364" = add i64 %".362", %".363"
  %".365" = getelementptr inbounds float, ptr %".2", i64 3
  %".366" = load float, ptr %".365", align 4
  %".367" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".366", i32 0
  %".368" = shufflevector <8 x float> %".367", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".369" = fadd contract <8 x float> %".315", %".368"
  %".370" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".369"
  %".371" = select  <8 x i1> %".370", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".369"
  %".372" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".373" = select  <8 x i1> %".372", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".371"
  %".374" = getelementptr inbounds float, ptr %".4", i64 %".364"
  store <8 x float> %".373", ptr %".374", align 4
  %".376" = mul i64 4, 64
  %".377" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".378" = add i64 %".376", %".377"
  %".379" = getelementptr inbounds float, ptr %".2", i64 4
  %".380" = load float, ptr %".379", align 4
  %".381" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".380", i32 0
  %".382" = shufflevector <8 x float> %".381", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".383" = fadd contract <8 x float> %".316", %".382"
  %".384" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".383"
  %".385" = select  <8 x i1> %".384", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".383"
  %".386" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".387" = select  <8 x i1> %".386", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".385"
  %".388" = getelementptr inbounds float, ptr %".4", i64 %".378"
  store <8 x float> %".387", ptr %".388", align 4
  %".390" = mul i64 5, 64
  %".391" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".392" = add i64 %".390", %".391"
  %".393" = getelementptr inbounds float, ptr %".2", i64 5
  %".394" = load float, ptr %".393", align 4
  %".395" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".394", i32 0
  %".396" = shufflevector <8 x float> %".395", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".397" = fadd contract <8 x float> %".317", %".396"
  %".398" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".397"
  %".399" = select  <8 x i1> %".398", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".397"
  %".400" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".401" = select  <8 x i1> %".400", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".399"
  %".402" = getelementptr inbounds float, ptr %".4", i64 %".392"
  store <8 x float> %".401", ptr %".402", align 4
  %".404" = mul i64 6, 64
  %".405" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".406" = add i64 %".404", %".405"
  %".407" = getelementptr inbounds float, ptr %".2", i64 6
  %".408" = load float, ptr %".407", align 4
  %".409" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".408", i32 0
  %".410" = shufflevector <8 x float> %".409", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".411" = fadd contract <8 x float> %".318", %".410"
  %".412" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".411"
  %".413" = select  <8 x i1> %".412", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".411"
  %".414" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".415" = select  <8 x i1> %".414", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".413"
  %".416" = getelementptr inbounds float, ptr %".4", i64 %".406"
  store <8 x float> %".415", ptr %".416", align 4
  %".418" = mul i64 7, 64
  %".419" = mul i64 %"relu_i0_i1_o_f_i2_f", 8
  %".420" = add i64 %".418", %".419"
  %".421" = getelementptr inbounds float, ptr %".2", i64 7
  %".422" = load float, ptr %".421", align 4
  %".423" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".422", i32 0
  %".424" = shufflevector <8 x float> %".423", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".425" = fadd contract <8 x float> %".319", %".424"
  %".426" = fcmp ogt <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, %".425"
  %".427" = select  <8 x i1> %".426", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".425"
  %".428" = fcmp uno <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>
  %".429" = select  <8 x i1> %".428", <8 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, <8 x float> %".427"
  %".430" = getelementptr inbounds float, ptr %".4", i64 %".420"
  store <8 x float> %".429", ptr %".430", align 4
  %"relu_i0_i1_o_f_i2_f.next" = add nsw i64 %"relu_i0_i1_o_f_i2_f", 1
  br label %"relu_i0_i1_o_f_i2_f.header"
conv2d_ry.header:
  %"conv2d_ry" = phi  i64 [0, %"conv2d_rc.body"], [%"conv2d_ry.next", %"conv2d_rx.exit"]
  %".40" = icmp slt i64 %"conv2d_ry", 3
  br i1 %".40", label %"conv2d_ry.body", label %"conv2d_ry.exit"
conv2d_ry.body:
  br label %"conv2d_rx.header"
conv2d_ry.exit:
  %"conv2d_rc.next" = add nsw i64 %"conv2d_rc", 1
  br label %"conv2d_rc.header"
conv2d_rx.header:
  %"conv2d_rx" = phi  i64 [0, %"conv2d_ry.body"], [%"conv2d_rx.next", %"conv2d_rx.body"]
  %".43" = icmp slt i64 %"conv2d_rx", 3
  br i1 %".43", label %"conv2d_rx.body", label %"conv2d_rx.exit"
conv2d_rx.body:
  %".45" = mul i64 0, 8
  %".46" = mul i64 0, 8
  %".47" = getelementptr inbounds float, ptr %".11", i64 %".46"
  %".48" = load <8 x float>, ptr %".47", align 4
  %".49" = mul i64 %"conv2d_rc", 100
  %".50" = mul i64 %"conv2d_ry", 10
  %".51" = add i64 %".49", %".50"
  %".52" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".53" = add i64 %".51", %".52"
  %".54" = add i64 %".53", %"conv2d_rx"
  %".55" = add i64 %".54", 0
  %".56" = getelementptr inbounds float, ptr %".3", i64 %".55"
  %".57" = load float, ptr %".56", align 4
  %".58" = mul i64 %"conv2d_rc", 72
  %".59" = mul i64 %"conv2d_ry", 24
  %".60" = add i64 %".58", %".59"
  %".61" = mul i64 %"conv2d_rx", 8
  %".62" = add i64 %".60", %".61"
  %".63" = getelementptr inbounds float, ptr %".1", i64 %".62"
  %".64" = load <8 x float>, ptr %".63", align 4
  %".65" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".57", i32 0
  %".66" = shufflevector <8 x float> %".65", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".67" = fmul contract <8 x float> %".66", %".64"
  %".68" = fadd contract <8 x float> %".48", %".67"
  %".69" = getelementptr inbounds float, ptr %".11", i64 %".45"
  store <8 x float> %".68", ptr %".69", align 4
  %".71" = mul i64 1, 8
  %".72" = mul i64 1, 8
  %".73" = getelementptr inbounds float, ptr %".11", i64 %".72"
  %".74" = load <8 x float>, ptr %".73", align 4
  %".75" = mul i64 %"conv2d_rc", 100
  %".76" = mul i64 %"conv2d_ry", 10
  %".77" = add i64 %".75", %".76"
  %".78" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".79" = add i64 %".77", %".78"
  %".80" = add i64 %".79", %"conv2d_rx"
  %".81" = add i64 %".80", 1
  %".82" = getelementptr inbounds float, ptr %".3", i64 %".81"
  %".83" = load float, ptr %".82", align 4
  %".84" = mul i64 %"conv2d_rc", 72
  %".85" = mul i64 %"conv2d_ry", 24
  %".86" = add i64 %".84", %".85"
  %".87" = mul i64 %"conv2d_rx", 8
  %".88" = add i64 %".86", %".87"
  %".89" = getelementptr inbounds float, ptr %".1", i64 %".88"
  %".90" = load <8 x float>, ptr %".89", align 4
  %".91" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".83", i32 0
  %".92" = shufflevector <8 x float> %".91", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".93" = fmul contract <8 x float> %".92", %".90"
  %".94" = fadd contract <8 x float> %".74", %".93"
  %".95" = getelementptr inbounds float, ptr %".11", i64 %".71"
  store <8 x float> %".94", ptr %".95", align 4
  %".97" = mul i64 2, 8
  %".98" = mul i64 2, 8
  %".99" = getelementptr inbounds float, ptr %".11", i64 %".98"
  %".100" = load <8 x float>, ptr %".99", align 4
  %".101" = mul i64 %"conv2d_rc", 100
  %".102" = mul i64 %"conv2d_ry", 10
  %".103" = add i64 %".101", %".102"
  %".104" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".105" = add i64 %".103", %".104"
  %".106" = add i64 %".105", %"conv2d_rx"
  %".107" = add i64 %".106", 2
  %".108" = getelementptr inbounds float, ptr %".3", i64 %".107"
  %".109" = load float, ptr %".108", align 4
  %".110" = mul i64 %"conv2d_rc", 72
  %".111" = mul i64 %"conv2d_ry", 24
  %".112" = add i64 %".110", %".111"
  %".113" = mul i64 %"conv2d_rx", 8
  %".114" = add i64 %".112", %".113"
  %".115" = getelementptr inbounds float, ptr %".1", i64 %".114"
  %".116" = load <8 x float>, ptr %".115", align 4
  %".117" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".109", i32 0
  %".118" = shufflevector <8 x float> %".117", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".119" = fmul contract <8 x float> %".118", %".116"
  %".120" = fadd contract <8 x float> %".100", %".119"
  %".121" = getelementptr inbounds float, ptr %".11", i64 %".97"
  store <8 x float> %".120", ptr %".121", align 4
  %".123" = mul i64 3, 8
  %".124" = mul i64 3, 8
  %".125" = getelementptr inbounds float, ptr %".11", i64 %".124"
  %".126" = load <8 x float>, ptr %".125", align 4
  %".127" = mul i64 %"conv2d_rc", 100
  %".128" = mul i64 %"conv2d_ry", 10
  %".129" = add i64 %".127", %".128"
  %".130" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".131" = add i64 %".129", %".130"
  %".132" = add i64 %".131", %"conv2d_rx"
  %".133" = add i64 %".132", 3
  %".134" = getelementptr inbounds float, ptr %".3", i64 %".133"
  %".135" = load float, ptr %".134", align 4
  %".136" = mul i64 %"conv2d_rc", 72
  %".137" = mul i64 %"conv2d_ry", 24
  %".138" = add i64 %".136", %".137"
  %".139" = mul i64 %"conv2d_rx", 8
  %".140" = add i64 %".138", %".139"
  %".141" = getelementptr inbounds float, ptr %".1", i64 %".140"
  %".142" = load <8 x float>, ptr %".141", align 4
  %".143" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".135", i32 0
  %".144" = shufflevector <8 x float> %".143", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".145" = fmul contract <8 x float> %".144", %".142"
  %".146" = fadd contract <8 x float> %".126", %".145"
  %".147" = getelementptr inbounds float, ptr %".11", i64 %".123"
  store <8 x float> %".146", ptr %".147", align 4
  %".149" = mul i64 4, 8
  %".150" = mul i64 4, 8
  %".151" = getelementptr inbounds float, ptr %".11", i64 %".150"
  %".152" = load <8 x float>, ptr %".151", align 4
  %".153" = mul i64 %"conv2d_rc", 100
  %".154" = mul i64 %"conv2d_ry", 10
  %".155" = add i64 %".153", %".154"
  %".156" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".157" = add i64 %".155", %".156"
  %".158" = add i64 %".157", %"conv2d_rx"
  %".159" = add i64 %".158", 4
  %".160" = getelementptr inbounds float, ptr %".3", i64 %".159"
  %".161" = load float, ptr %".160", align 4
  %".162" = mul i64 %"conv2d_rc", 72
  %".163" = mul i64 %"conv2d_ry", 24
  %".164" = add i64 %".162", %".163"
  %".165" = mul i64 %"conv2d_rx", 8
  %".166" = add i64 %".164", %".165"
  %".167" = getelementptr inbounds float, ptr %".1", i64 %".166"
  %".168" = load <8 x float>, ptr %".167", align 4
  %".169" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".161", i32 0
  %".170" = shufflevector <8 x float> %".169", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".171" = fmul contract <8 x float> %".170", %".168"
  %".172" = fadd contract <8 x float> %".152", %".171"
  %".173" = getelementptr inbounds float, ptr %".11", i64 %".149"
  store <8 x float> %".172", ptr %".173", align 4
  %".175" = mul i64 5, 8
  %".176" = mul i64 5, 8
  %".177" = getelementptr inbounds float, ptr %".11", i64 %".176"
  %".178" = load <8 x float>, ptr %".177", align 4
  %".179" = mul i64 %"conv2d_rc", 100
  %".180" = mul i64 %"conv2d_ry", 10
  %".181" = add i64 %".179", %".180"
  %".182" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".183" = add i64 %".181", %".182"
  %".184" = add i64 %".183", %"conv2d_rx"
  %".185" = add i64 %".184", 5
  %".186" = getelementptr inbounds float, ptr %".3", i64 %".185"
  %".187" = load float, ptr %".186", align 4
  %".188" = mul i64 %"conv2d_rc", 72
  %".189" = mul i64 %"conv2d_ry", 24
  %".190" = add i64 %".188", %".189"
  %".191" = mul i64 %"conv2d_rx", 8
  %".192" = add i64 %".190", %".191"
  %".193" = getelementptr inbounds float, ptr %".1", i64 %".192"
  %".194" = load <8 x float>, ptr %".193", align 4
  %".195" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".187", i32 0
  %".196" = shufflevector <8 x float> %".195", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".197" = fmul contract <8 x float> %".196", %".194"
  %".198" = fadd contract <8 x float> %".178", %".197"
  %".199" = getelementptr inbounds float, ptr %".11", i64 %".175"
  store <8 x float> %".198", ptr %".199", align 4
  %".201" = mul i64 6, 8
  %".202" = mul i64 6, 8
  %".203" = getelementptr inbounds float, ptr %".11", i64 %".202"
  %".204" = load <8 x float>, ptr %".203", align 4
  %".205" = mul i64 %"conv2d_rc", 100
  %".206" = mul i64 %"conv2d_ry", 10
  %".207" = add i64 %".205", %".206"
  %".208" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".209" = add i64 %".207", %".208"
  %".210" = add i64 %".209", %"conv2d_rx"
  %".211" = add i64 %".210", 6
  %".212" = getelementptr inbounds float, ptr %".3", i64 %".211"
  %".213" = load float, ptr %".212", align 4
  %".214" = mul i64 %"conv2d_rc", 72
  %".215" = mul i64 %"conv2d_ry", 24
  %".216" = add i64 %".214", %".215"
  %".217" = mul i64 %"conv2d_rx", 8
  %".218" = add i64 %".216", %".217"
  %".219" = getelementptr inbounds float, ptr %".1", i64 %".218"
  %".220" = load <8 x float>, ptr %".219", align 4
  %".221" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".213", i32 0
  %".222" = shufflevector <8 x float> %".221", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".223" = fmul contract <8 x float> %".222", %".220"
  %".224" = fadd contract <8 x float> %".204", %".223"
  %".225" = getelementptr inbounds float, ptr %".11", i64 %".201"
  store <8 x float> %".224", ptr %".225", align 4
  %".227" = mul i64 7, 8
  %".228" = mul i64 7, 8
  %".229" = getelementptr inbounds float, ptr %".11", i64 %".228"
  %".230" = load <8 x float>, ptr %".229", align 4
  %".231" = mul i64 %"conv2d_rc", 100
  %".232" = mul i64 %"conv2d_ry", 10
  %".233" = add i64 %".231", %".232"
  %".234" = mul i64 %"relu_i0_i1_o_f_i2_f", 10
  %".235" = add i64 %".233", %".234"
  %".236" = add i64 %".235", %"conv2d_rx"
  %".237" = add i64 %".236", 7
  %".238" = getelementptr inbounds float, ptr %".3", i64 %".237"
  %".239" = load float, ptr %".238", align 4
  %".240" = mul i64 %"conv2d_rc", 72
  %".241" = mul i64 %"conv2d_ry", 24
  %".242" = add i64 %".240", %".241"
  %".243" = mul i64 %"conv2d_rx", 8
  %".244" = add i64 %".242", %".243"
  %".245" = getelementptr inbounds float, ptr %".1", i64 %".244"
  %".246" = load <8 x float>, ptr %".245", align 4
  %".247" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".239", i32 0
  %".248" = shufflevector <8 x float> %".247", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".249" = fmul contract <8 x float> %".248", %".246"
  %".250" = fadd contract <8 x float> %".230", %".249"
  %".251" = getelementptr inbounds float, ptr %".11", i64 %".227"
  store <8 x float> %".250", ptr %".251", align 4
  %"conv2d_rx.next" = add nsw i64 %"conv2d_rx", 1
  br label %"conv2d_rx.header"
conv2d_rx.exit:
  %"conv2d_ry.next" = add nsw i64 %"conv2d_ry", 1
  br label %"conv2d_ry.header"
}

define internal void @"fused_nn_conv2d_add_nn_relu_parallel0"(ptr %".1") nounwind
{
entry:
  %".3" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 0
  %".4" = load ptr, ptr %".3"
  %".5" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 1
  %".6" = load ptr, ptr %".5"
  %".7" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 2
  %".8" = load ptr, ptr %".7"
  %".9" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 3
  %".10" = load ptr, ptr %".9"
  %".11" = getelementptr inbounds {ptr, ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 4
  %".12" = load i64, ptr %".11"
  %".13" = call i32 @"omp_get_thread_num"()
  %".14" = call i32 @"omp_get_num_threads"()
  %".15" = zext i32 %".13" to i64
  %".16" = zext i32 %".14" to i64
  %".17" = icmp slt i64 %".12", 0
  %".18" = select  i1 %".17", i64 0, i64 %".12"
  %".19" = sub i64 %".16", 1
  %".20" = add i64 %".18", %".19"
  %".21" = udiv i64 %".20", %".16"
  %".22" = mul i64 %".15", %".21"
  %".23" = icmp slt i64 %".22", %".18"
  %".24" = select  i1 %".23", i64 %".22", i64 %".18"
  %".25" = add i64 %".24", %".21"
  %".26" = icmp slt i64 %".25", %".18"
  %".27" = select  i1 %".26", i64 %".25", i64 %".18"
  call void @"fused_nn_conv2d_add_nn_relu_parallel0_body"(ptr %".4", ptr %".6", ptr %".8", ptr %".10", i64 %".24", i64 %".27")
  ret void
}

declare i32 @"omp_get_thread_num"()

declare i32 @"omp_get_num_threads"()

declare void @"GOMP_parallel"(ptr %".1", ptr %".2", i32 %".3", i32 %".4")

define void @"fused_nn_conv2d_add_nn_relu_packed"(ptr %".1") nounwind
{
entry:
  %".3" = getelementptr inbounds ptr, ptr %".1", i64 0
  %".4" = load ptr, ptr %".3"
  %".5" = getelementptr inbounds ptr, ptr %".1", i64 1
  %".6" = load ptr, ptr %".5"
  %".7" = getelementptr inbounds ptr, ptr %".1", i64 2
  %".8" = load ptr, ptr %".7"
  %".9" = getelementptr inbounds ptr, ptr %".1", i64 3
  %".10" = load ptr, ptr %".9"
  call void @"fused_nn_conv2d_add_nn_relu"(ptr %".4", ptr %".6", ptr %".8", ptr %".10")
  ret void
}
