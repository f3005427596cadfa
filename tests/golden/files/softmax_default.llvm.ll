define void @"fused_nn_softmax"(ptr noalias nonnull %"p0", ptr noalias nonnull %"softmax") nounwind
{
entry:
  %".7" = alloca [16 x float], align 64
  %".39" = alloca [1 x float], align 64
  %".56" = alloca [48 x float], align 64
  %".148" = alloca [16 x float], align 64
  %".170" = alloca [1 x float], align 64
  br label %"body"
body:
  br label %"softmax_i0.header"
softmax_i0.header:
  %"softmax_i0" = phi  i64 [0, %"body"], [%"softmax_i0.next", %"softmax_i1_o.exit"]
  %".5" = icmp slt i64 %"softmax_i0", 4
  br i1 %".5", label %"softmax_i0.body", label %"softmax_i0.exit"
softmax_i0.body:
  %".8" = getelementptr inbounds float, ptr %".7", i64 0
  store <16 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".8", align 4
  br label %"softmax_maxelem_rf_k_o.header"
softmax_i0.exit:
  ret void
softmax_maxelem_rf_k_o.header:
  %"softmax_maxelem_rf_k_o" = phi  i64 [0, %"softmax_i0.body"], [%"softmax_maxelem_rf_k_o.next", %"softmax_maxelem_rf_k_o.body"]
  %".11" = icmp slt i64 %"softmax_maxelem_rf_k_o", 2
  br i1 %".11", label %"softmax_maxelem_rf_k_o.body", label %"softmax_maxelem_rf_k_o.exit"
softmax_maxelem_rf_k_o.body:
  %".13" = getelementptr inbounds float, ptr %".7", i64 0
  %".14" = load <16 x float>, ptr %".13", align 4
  %".15" = mul i64 %"softmax_i0", 40
  %".16" = mul i64 %"softmax_maxelem_rf_k_o", 16
  %".17" = add i64 %".15", %".16"
  %".18" = getelementptr inbounds float, ptr %"p0", i64 %".17"
  %".19" = load <16 x float>, ptr %".18", align 4
  %".20" = fcmp ogt <16 x float> %".19", %".14"
  %".21" = select  <16 x i1> %".20", <16 x float> %".19", <16 x float> %".14"
  %".22" = fcmp uno <16 x float> %".19", %".19"
  %".23" = select  <16 x i1> %".22", <16 x float> %".19", <16 x float> %".21"
  %".24" = getelementptr inbounds float, ptr %".7", i64 0
  store <16 x float> %".23", ptr %".24", align 4
  %"softmax_maxelem_rf_k_o.next" = add nsw i64 %"softmax_maxelem_rf_k_o", 1
  br label %"softmax_maxelem_rf_k_o.header"
softmax_maxelem_rf_k_o.exit:
  %".27" = getelementptr inbounds float, ptr %".7", i64 0
  %".28" = load <8 x float>, ptr %".27", align 4
  %".29" = mul i64 %"softmax_i0", 40
  %".30" = add i64 %".29", 32
  %".31" = getelementptr inbounds float, ptr %"p0", i64 %".30"
  %".32" = load <8 x float>, ptr %".31", align 4
  %".33" = fcmp ogt <8 x float> %".32", %".28"
  %".34" = select  <8 x i1> %".33", <8 x float> %".32", <8 x float> %".28"
  %".35" = fcmp uno <8 x float> %".32", %".32"
  %".36" = select  <8 x i1> %".35", <8 x float> %".32", <8 x float> %".34"
  %".37" = getelementptr inbounds float, ptr %".7", i64 0
  store <8 x float> %".36", ptr %".37", align 4
  %".40" = getelementptr inbounds float, ptr %".39", i64 0
  store float 0xfff0000000000000, ptr %".40", align 4
  br label %"softmax_maxelem_k_i.header"
softmax_maxelem_k_i.header:
  %"softmax_maxelem_k_i" = phi  i64 [0, %"softmax_maxelem_rf_k_o.exit"], [%"softmax_maxelem_k_i.next", %"softmax_maxelem_k_i.body"]
  %".43" = icmp slt i64 %"softmax_maxelem_k_i", 16
  br i1 %".43", label %"softmax_maxelem_k_i.body", label %"softmax_maxelem_k_i.exit"
softmax_maxelem_k_i.body:
  %".45" = getelementptr inbounds float, ptr %".39", i64 0
  %".46" = load float, ptr %".45", align 4
  %".47" = getelementptr inbounds float, ptr %".7", i64 %"softmax_maxelem_k_i"
  %".48" = load float, ptr %".47", align 4
  %".49" = fcmp ogt float %".48", %".46"
  %".50" = select  i1 %".49", float %".48", float %".46"
  %".51" = fcmp uno float %".48", %".48"
  %".52" = select  i1 %".51", float %".48", float %".50"
  %".53" = getelementptr inbounds float, ptr %".39", i64 0
  store float %".52", ptr %".53", align 4
  %"softmax_maxelem_k_i.next" = add nsw i64 %"softmax_maxelem_k_i", 1
  br label %"softmax_maxelem_k_i.header"
softmax_maxelem_k_i.exit:
  br label %"softmax_exp_i1_o.header"
softmax_exp_i1_o.header:
  %"softmax_exp_i1_o" = phi  i64 [0, %"softmax_maxelem_k_i.exit"], [%"softmax_exp_i1_o.next", %"softmax_exp_i1_o.body"]
  %".58" = icmp slt i64 %"softmax_exp_i1_o", 2
  br i1 %".58", label %"softmax_exp_i1_o.body", label %"softmax_exp_i1_o.exit"
softmax_exp_i1_o.body:
  %".60" = mul i64 %"softmax_exp_i1_o", 16
  %".61" = mul i64 %"softmax_i0", 40
  %".62" = mul i64 %"softmax_exp_i1_o", 16
  %".63" = add i64 %".61", %".62"
  %".64" = getelementptr inbounds float, ptr %"p0", i64 %".63"
  %".65" = load <16 x float>, ptr %".64", align 4
  %".66" = getelementptr inbounds float, ptr %".39", i64 0
  %".67" = load float, ptr %".66", align 4
  %".68" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".67", i32 0
  %".69" = shufflevector <16 x float> %".68", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".70" = fsub contract <16 x float> %".65", %".69"
  %".71" = fcmp olt <16 x float> %".70", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".72" = select  <16 x i1> %".71", <16 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <16 x float> %".70"
  %".73" = fcmp ogt <16 x float> %".72", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".74" = select  <16 x i1> %".73", <16 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <16 x float> %".72"
  %".75" = fmul contract <16 x float> %".74", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".76" = fadd contract <16 x float> %".75", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".77" = fsub <16 x float> %".76", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".78" = fmul contract <16 x float> %".77", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".79" = fsub <16 x float> %".74", %".78"
  %".80" = fmul contract <16 x float> %".77", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".81" = fsub <16 x float> %".79", %".80"
  %".82" = fmul contract <16 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".81"
  %".83" = fadd contract <16 x float> %".82", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".84" = fmul contract <16 x float> %".83", %".81"
  %".85" = fadd contract <16 x float> %".84", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".86" = fmul contract <16 x float> %".85", %".81"
  %".87" = fadd contract <16 x float> %".86", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".88" = fmul contract <16 x float> %".87", %".81"
  %".89" = fadd contract <16 x float> %".88", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".90" = fmul contract <16 x float> %".89", %".81"
  %".91" = fadd contract <16 x float> %".90", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".92" = fmul contract <16 x float> %".91", %".81"
  %".93" = fmul contract <16 x float> %".92", %".81"
  %".94" = fadd contract <16 x float> %".93", %".81"
  %".95" = fadd contract <16 x float> %".94", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".96" = call <16 x float> @"llvm.x86.avx512.mask.scalef.ps.512"(<16 x float> %".95", <16 x float> %".77", <16 x float> %".95", i16 -1, i32 4)
  %".97" = getelementptr inbounds float, ptr %".56", i64 %".60"
  store <16 x float> %".96", ptr %".97", align 4
  %"softmax_exp_i1_o.next" = add nsw i64 %"softmax_exp_i1_o", 1
  br label %"softmax_exp_i1_o.header"
softmax_exp_i1_o.exit:
  %".100" = mul i64 %"softmax_i0", 40
  %".101" = add i64 %".100", 32
  %".102" = getelementptr inbounds float, ptr %"p0", i64 %".101"
  %".103" = load <8 x float>, ptr %".102", align 4
  %".104" = getelementptr inbounds float, ptr %".39", i64 0
  %".105" = load float, ptr %".104", align 4
  %".106" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".105", i32 0
  %".107" = shufflevector <8 x float> %".106", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".108" = fsub contract <8 x float> %".103", %".107"
  %".109" = fcmp olt <8 x float> %".108", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".110" = select  <8 x i1> %".109", <8 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <8 x float> %".108"
  %".111" = fcmp ogt <8 x float> %".110", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".112" = select  <8 x i1> %".111", <8 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <8 x float> %".110"
  %".113" = fmul contract <8 x float> %".112", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".114" = fadd contract <8 x float> %".113", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".115" = fsub <8 x float> %".114", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".116" = fmul contract <8 x float> %".115", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".117" = fsub <8 x float> %".112", %".116"
  %".118" = fmul contract <8 x float> %".115", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".119" = fsub <8 x float> %".117", %".118"
  %".120" = fmul contract <8 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".119"
  %".121" = fadd contract <8 x float> %".120", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".122" = fmul contract <8 x float> %".121", %".119"
  %".123" = fadd contract <8 x float> %".122", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".124" = fmul contract <8 x float> %".123", %".119"
  %".125" = fadd contract <8 x float> %".124", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".126" = fmul contract <8 x float> %".125", %".119"
  %".127" = fadd contract <8 x float> %".126", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".128" = fmul contract <8 x float> %".127", %".119"
  %".129" = fadd contract <8 x float> %".128", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".130" = fmul contract <8 x float> %".129", %".119"
  %".131" = fmul contract <8 x float> %".130", %".119"
  %".132" = fadd contract <8 x float> %".131", %".119"
  %".133" = fadd contract <8 x float> %".132", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".134" = bitcast <8 x float> %".114" to <8 x i32>
  %".135" = sub <8 x i32> %".134", <i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504>
  %".136" = ashr <8 x i32> %".135", <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %".137" = sub <8 x i32> %".135", %".136"
  %".138" = add <8 x i32> %".136", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".139" = shl <8 x i32> %".138", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".140" = bitcast <8 x i32> %".139" to <8 x float>
  %".141" = add <8 x i32> %".137", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".142" = shl <8 x i32> %".141", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".143" = bitcast <8 x i32> %".142" to <8 x float>
  %".144" = fmul contract <8 x float> %".133", %".140"
  %".145" = fmul contract <8 x float> %".144", %".143"
  %".146" = getelementptr inbounds float, ptr %".56", i64 32
  store <8 x float> %".145", ptr %".146", align 4
  %".149" = getelementptr inbounds float, ptr %".148", i64 0
  store <16 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".149", align 4
  br label %"softmax_expsum_rf_k_o.header"
softmax_expsum_rf_k_o.header:
  %"softmax_expsum_rf_k_o" = phi  i64 [0, %"softmax_exp_i1_o.exit"], [%"softmax_expsum_rf_k_o.next", %"softmax_expsum_rf_k_o.body"]
  %".152" = icmp slt i64 %"softmax_expsum_rf_k_o", 2
  br i1 %".152", label %"softmax_expsum_rf_k_o.body", label %"softmax_expsum_rf_k_o.exit"
softmax_expsum_rf_k_o.body:
  %".154" = getelementptr inbounds float, ptr %".148", i64 0
  %".155" = load <16 x float>, ptr %".154", align 4
  %".156" = mul i64 %"softmax_expsum_rf_k_o", 16
  %".157" = getelementptr inbounds float, ptr %".56", i64 %".156"
  %".158" = load <16 x float>, ptr %".157", align 4
  %".159" = fadd contract <16 x float> %".155", %".158"
  %".160" = getelementptr inbounds float, ptr %".148", i64 0
  store <16 x float> %".159", ptr %".160", align 4
  %"softmax_expsum_rf_k_o.next" = add nsw i64 %"softmax_expsum_rf_k_o", 1
  br label %"softmax_expsum_rf_k_o.header"
softmax_expsum_rf_k_o.exit:
  %".163" = getelementptr inbounds float, ptr %".148", i64 0
  %".164" = load <8 x float>, ptr %".163", align 4
  %".165" = getelementptr inbounds float, ptr %".56", i64 32
  %".166" = load <8 x float>, ptr %".165", align 4
  %".167" = fadd contract <8 x float> %".164", %".166"
  %".168" = getelementptr inbounds float, ptr %".148", i64 0
  store <8 x float> %".167", ptr %".168", align 4
  %".171" = getelementptr inbounds float, ptr %".170", i64 0
  store float              0x0, ptr %".171", align 4
  br label %"softmax_expsum_k_i.header"
softmax_expsum_k_i.header:
  %"softmax_expsum_k_i" = phi  i64 [0, %"softmax_expsum_rf_k_o.exit"], [%"softmax_expsum_k_i.next", %"softmax_expsum_k_i.body"]
  %".174" = icmp slt i64 %"softmax_expsum_k_i", 16
  br i1 %".174", label %"softmax_expsum_k_i.body", label %"softmax_expsum_k_i.exit"
softmax_expsum_k_i.body:
  %".176" = getelementptr inbounds float, ptr %".170", i64 0
  %".177" = load float, ptr %".176", align 4
  %".178" = getelementptr inbounds float, ptr %".148", i64 %"softmax_expsum_k_i"
  %".179" = load float, ptr %".178", align 4
  %".180" = fadd contract float %".177", %".179"
  %".181" = getelementptr inbounds float, ptr %".170", i64 0
  store float %".180", ptr %".181", align 4
  %"softmax_expsum_k_i.next" = add nsw i64 %"softmax_expsum_k_i", 1
  br label %"softmax_expsum_k_i.header"
softmax_expsum_k_i.exit:
  br label %"softmax_i1_o.header"
softmax_i1_o.header:
  %"softmax_i1_o" = phi  i64 [0, %"softmax_expsum_k_i.exit"], [%"softmax_i1_o.next", %"softmax_i1_o.body"]
  %".185" = icmp slt i64 %"softmax_i1_o", 2
  br i1 %".185", label %"softmax_i1_o.body", label %"softmax_i1_o.exit"
softmax_i1_o.body:
  %".187" = mul i64 %"softmax_i0", 40
  %".188" = mul i64 %"softmax_i1_o", 16
  %".189" = add i64 %".187", %".188"
  %".190" = mul i64 %"softmax_i1_o", 16
  %".191" = getelementptr inbounds float, ptr %".56", i64 %".190"
  %".192" = load <16 x float>, ptr %".191", align 4
  %".193" = getelementptr inbounds float, ptr %".170", i64 0
  %".194" = load float, ptr %".193", align 4
  %".195" = fdiv float 0x3ff0000000000000, %".194"
  %".196" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".195", i32 0
  %".197" = shufflevector <16 x float> %".196", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".198" = fmul contract <16 x float> %".192", %".197"
  %".199" = getelementptr inbounds float, ptr %"softmax", i64 %".189"
  store <16 x float> %".198", ptr %".199", align 4
  %"softmax_i1_o.next" = add nsw i64 %"softmax_i1_o", 1
  br label %"softmax_i1_o.header"
softmax_i1_o.exit:
  %".202" = mul i64 %"softmax_i0", 40
  %".203" = add i64 %".202", 32
  %".204" = getelementptr inbounds float, ptr %".56", i64 32
  %".205" = load <8 x float>, ptr %".204", align 4
  %".206" = getelementptr inbounds float, ptr %".170", i64 0
  %".207" = load float, ptr %".206", align 4
  %".208" = fdiv float 0x3ff0000000000000, %".207"
  %".209" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".208", i32 0
  %".210" = shufflevector <8 x float> %".209", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".211" = fmul contract <8 x float> %".205", %".210"
  %".212" = getelementptr inbounds float, ptr %"softmax", i64 %".203"
  store <8 x float> %".211", ptr %".212", align 4
  %"softmax_i0.next" = add nsw i64 %"softmax_i0", 1
  br label %"softmax_i0.header"
}

declare <16 x float> @"llvm.x86.avx512.mask.scalef.ps.512"(<16 x float> %".1", <16 x float> %".2", <16 x float> %".3", i16 %".4", i32 %".5")

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
