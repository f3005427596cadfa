define void @"fused_nn_matmul"(ptr noalias nonnull %"p0", ptr noalias nonnull %"p1", ptr noalias nonnull %"matmul") nounwind
{
entry:
  %".5" = alloca {ptr, ptr, ptr, i64}
  br label %"body"
body:
  %".6" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".5", i32 0, i32 0
  store ptr %"matmul", ptr %".6"
  %".8" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".5", i32 0, i32 1
  store ptr %"p0", ptr %".8"
  %".10" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".5", i32 0, i32 2
  store ptr %"p1", ptr %".10"
  %".12" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".5", i32 0, i32 3
  store i64 8, ptr %".12"
  call void @"GOMP_parallel"(void (ptr)* @"fused_nn_matmul_parallel0", ptr %".5", i32 2, i32 0)
  ret void
}

define internal void @"fused_nn_matmul_parallel0_body"(ptr noalias nonnull %".1", ptr noalias nonnull %".2", ptr noalias nonnull %".3", i64 %".4", i64 %".5") nounwind
{
entry:
  %".10" = alloca [64 x float], align 64
  br label %"body"
body:
  br label %"matmul_i0_o_i1_o_f.header"
matmul_i0_o_i1_o_f.header:
  %"matmul_i0_o_i1_o_f" = phi  i64 [%".4", %"body"], [%"matmul_i0_o_i1_o_f.next", %"matmul_i0_i.exit"]
  %".8" = icmp slt i64 %"matmul_i0_o_i1_o_f", %".5"
  br i1 %".8", label %"matmul_i0_o_i1_o_f.body", label %"matmul_i0_o_i1_o_f.exit"
matmul_i0_o_i1_o_f.body:
  %".11" = mul i64 0, 16
  %".12" = getelementptr inbounds float, ptr %".10", i64 %".11"
  store <16 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".12", align 4
  %".14" = mul i64 1, 16
  %".15" = getelementptr inbounds float, ptr %".10", i64 %".14"
  store <16 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".15", align 4
  %".17" = mul i64 2, 16
  %".18" = getelementptr inbounds float, ptr %".10", i64 %".17"
  store <16 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".18", align 4
  %".20" = mul i64 3, 16
  %".21" = getelementptr inbounds float, ptr %".10", i64 %".20"
  store <16 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".21", align 4
  br label %"matmul_local_k.header"
matmul_i0_o_i1_o_f.exit:
  ret void
matmul_local_k.header:
  %"matmul_local_k" = phi  i64 [0, %"matmul_i0_o_i1_o_f.body"], [%"matmul_local_k.next", %"matmul_local_k.body"]
  %".24" = icmp slt i64 %"matmul_local_k", 32
  br i1 %".24", label %"matmul_local_k.body", label %"matmul_local_k.exit"
matmul_local_k.body:
  %".26" = mul i64 0, 16
  %".27" = mul i64 0, 16
  %".28" = getelementptr inbounds float, ptr %".10", i64 %".27"
  %".29" = load <16 x float>, ptr %".28", align 4
  %".30" = udiv i64 %"matmul_i0_o_i1_o_f", 2
  %".31" = mul i64 %".30", 128
  %".32" = mul i64 0, 32
  %".33" = add i64 %".31", %".32"
  %".34" = add i64 %".33", %"matmul_local_k"
  %".35" = getelementptr inbounds float, ptr %".2", i64 %".34"
  %".36" = load float, ptr %".35", align 4
  %".37" = urem i64 %"matmul_i0_o_i1_o_f", 2
  %".38" = mul i64 %".37", 512
  %".39" = mul i64 %"matmul_local_k", 16
  %".40" = add i64 %".38", %".39"
  %".41" = getelementptr inbounds float, ptr %".3", i64 %".40"
  %".42" = load <16 x float>, ptr %".41", align 4
  %".43" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".36", i32 0
  %".44" = shufflevector <16 x float> %".43", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".45" = fmul contract <16 x float> %".44", %".42"
  %".46" = fadd contract <16 x float> %".29", %".45"
  %".47" = getelementptr inbounds float, ptr %".10", i64 %".26"
  store <16 x float> %".46", ptr %".47", align 4
  %".49" = mul i64 1, 16
  %".50" = mul i64 1, 16
  %".51" = getelementptr inbounds float, ptr %".10", i64 %".50"
  %".52" = load <16 x float>, ptr %".51", align 4
  %".53" = udiv i64 %"matmul_i0_o_i1_o_f", 2
  %".54" = mul i64 %".53", 128
  %".55" = mul i64 1, 32
  %".56" = add i64 %".54", %".55"
  %".57" = add i64 %".56", %"matmul_local_k"
  %".58" = getelementptr inbounds float, ptr %".2", i64 %".57"
  %".59" = load float, ptr %".58", align 4
  %".60" = urem i64 %"matmul_i0_o_i1_o_f", 2
  %".61" = mul i64 %".60", 512
  %".62" = mul i64 %"matmul_local_k", 16
  %".63" = add i64 %".61", %".62"
  %".64" = getelementptr inbounds float, ptr %".3", i64 %".63"
  %".65" = load <16 x float>, ptr %".64", align 4
  %".66" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".59", i32 0
  %".67" = shufflevector <16 x float> %".66", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".68" = fmul contract <16 x float> %".67", %".65"
  %".69" = fadd contract <16 x float> %".52", %".68"
  %".70" = getelementptr inbounds float, ptr %".10", i64 %".49"
  store <16 x float> %".69", ptr %".70", align 4
  %".72" = mul i64 2, 16
  %".73" = mul i64 2, 16
  %".74" = getelementptr inbounds float, ptr %".10", i64 %".73"
  %".75" = load <16 x float>, ptr %".74", align 4
  %".76" = udiv i64 %"matmul_i0_o_i1_o_f", 2
  %".77" = mul i64 %".76", 128
  %".78" = mul i64 2, 32
  %".79" = add i64 %".77", %".78"
  %".80" = add i64 %".79", %"matmul_local_k"
  %".81" = getelementptr inbounds float, ptr %".2", i64 %".80"
  %".82" = load float, ptr %".81", align 4
  %".83" = urem i64 %"matmul_i0_o_i1_o_f", 2
  %".84" = mul i64 %".83", 512
  %".85" = mul i64 %"matmul_local_k", 16
  %".86" = add i64 %".84", %".85"
  %".87" = getelementptr inbounds float, ptr %".3", i64 %".86"
  %".88" = load <16 x float>, ptr %".87", align 4
  %".89" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".82", i32 0
  %".90" = shufflevector <16 x float> %".89", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".91" = fmul contract <16 x float> %".90", %".88"
  %".92" = fadd contract <16 x float> %".75", %".91"
  %".93" = getelementptr inbounds float, ptr %".10", i64 %".72"
  store <16 x float> %".92", ptr %".93", align 4
  %".95" = mul i64 3, 16
  %".96" = mul i64 3, 16
  %".97" = getelementptr inbounds float, ptr %".10", i64 %".96"
  %".98" = load <16 x float>, ptr %".97", align 4
  %".99" = udiv i64 %"matmul_i0_o_i1_o_f", 2
  %".100" = mul i64 %".99", 128
  %".101" = mul i64 3, 32
  %".102" = add i64 %".100", %".101"
  %".103" = add i64 %".102", %"matmul_local_k"
  %".104" = getelementptr inbounds float, ptr %".2", i64 %".103"
  %".105" = load float, ptr %".104", align 4
  %".106" = urem i64 %"matmul_i0_o_i1_o_f", 2
  %".107" = mul i64 %".106", 512
  %".108" = mul i64 %"matmul_local_k", 16
  %".109" = add i64 %".107", %".108"
  %".110" = getelementptr inbounds float, ptr %".3", i64 %".109"
  %".111" = load <16 x float>, ptr %".110", align 4
  %".112" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".105", i32 0
  %".113" = shufflevector <16 x float> %".112", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".114" = fmul contract <16 x float> %".113", %".111"
  %".115" = fadd contract <16 x float> %".98", %".114"
  %".116" = getelementptr inbounds float, ptr %".10", i64 %".95"
  store <16 x float> %".115", ptr %".116", align 4
  %"matmul_local_k.next" = add nsw i64 %"matmul_local_k", 1
  br label %"matmul_local_k.header"
matmul_local_k.exit:
  br label %"matmul_i0_i.header"
matmul_i0_i.header:
  %"matmul_i0_i" = phi  i64 [0, %"matmul_local_k.exit"], [%"matmul_i0_i.next", %"matmul_i0_i.body"]
  %".120" = icmp slt i64 %"matmul_i0_i", 4
  br i1 %".120", label %"matmul_i0_i.body", label %"matmul_i0_i.exit"
matmul_i0_i.body:
  %".122" = udiv i64 %"matmul_i0_o_i1_o_f", 2
  %".123" = mul i64 %".122", 128
  %".124" = mul i64 %"matmul_i0_i", 32
  %".125" = add i64 %".123", %".124"
  %".126" = urem i64 %"matmul_i0_o_i1_o_f", 2
  %".127" = mul i64 %".126", 16
  %".128" = add i64 %".125", %".127"
  %".129" = mul i64 %"matmul_i0_i", 16
  %".130" = getelementptr inbounds float, ptr %".10", i64 %".129"
  %".131" = load <16 x float>, ptr %".130", align 4
  %".132" = getelementptr inbounds float, ptr %".1", i64 %".128"
  store <16 x float> %".131", ptr %".132", align 4
  %"matmul_i0_i.next" = add nsw i64 %"matmul_i0_i", 1
  br label %"matmul_i0_i.header"
matmul_i0_i.exit:
  %"matmul_i0_o_i1_o_f.next" = add nsw i64 %"matmul_i0_o_i1_o_f", 1
  br label %"matmul_i0_o_i1_o_f.header"
}

define internal void @"fused_nn_matmul_parallel0"(ptr %".1") nounwind
{
entry:
  %".3" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 0
  %".4" = load ptr, ptr %".3"
  %".5" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 1
  %".6" = load ptr, ptr %".5"
  %".7" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 2
  %".8" = load ptr, ptr %".7"
  %".9" = getelementptr inbounds {ptr, ptr, ptr, i64}, ptr %".1", i32 0, i32 3
  %".10" = load i64, ptr %".9"
  %".11" = call i32 @"omp_get_thread_num"()
  %".12" = call i32 @"omp_get_num_threads"()
  %".13" = zext i32 %".11" to i64
  %".14" = zext i32 %".12" to i64
  %".15" = icmp slt i64 %".10", 0
  %".16" = select  i1 %".15", i64 0, i64 %".10"
  %".17" = sub i64 %".14", 1
  %".18" = add i64 %".16", %".17"
  %".19" = udiv i64 %".18", %".14"
  %".20" = mul i64 %".13", %".19"
  %".21" = icmp slt i64 %".20", %".16"
  %".22" = select  i1 %".21", i64 %".20", i64 %".16"
  %".23" = add i64 %".22", %".19"
  %".24" = icmp slt i64 %".23", %".16"
  %".25" = select  i1 %".24", i64 %".23", i64 %".16"
  call void @"fused_nn_matmul_parallel0_body"(ptr %".4", ptr %".6", ptr %".8", i64 %".22", i64 %".25")
  ret void
}

declare i32 @"omp_get_thread_num"()

declare i32 @"omp_get_num_threads"()

declare void @"GOMP_parallel"(ptr %".1", ptr %".2", i32 %".3", i32 %".4")

define void @"fused_nn_matmul_packed"(ptr %".1") nounwind
{
entry:
  %".3" = getelementptr inbounds ptr, ptr %".1", i64 0
  %".4" = load ptr, ptr %".3"
  %".5" = getelementptr inbounds ptr, ptr %".1", i64 1
  %".6" = load ptr, ptr %".5"
  %".7" = getelementptr inbounds ptr, ptr %".1", i64 2
  %".8" = load ptr, ptr %".7"
  call void @"fused_nn_matmul"(ptr %".4", ptr %".6", ptr %".8")
  ret void
}
