define void @"fused_nn_softmax"(ptr noalias nonnull %"p0", ptr noalias nonnull %"softmax") nounwind
{
entry:
  %".4" = alloca [64 x float], align 64
  %".5" = alloca [4 x float], align 64
  %".6" = alloca [64 x float], align 64
  %".7" = alloca [4 x float], align 64
  br label %"body"
body:
  br label %"softmax_maxelem_rf_i0.header"
softmax_maxelem_rf_i0.header:
  %"softmax_maxelem_rf_i0" = phi  i64 [0, %"body"], [%"softmax_maxelem_rf_i0.next", %"softmax_maxelem_rf_k_o.exit"]
  %".9" = icmp slt i64 %"softmax_maxelem_rf_i0", 4
  br i1 %".9", label %"softmax_maxelem_rf_i0.body", label %"softmax_maxelem_rf_i0.exit"
softmax_maxelem_rf_i0.body:
  %".11" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".12" = getelementptr inbounds float, ptr %".4", i64 %".11"
  store <16 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".12", align 4
  br label %"softmax_maxelem_rf_k_o.header"
softmax_maxelem_rf_i0.exit:
  %".48" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".48", align 4
  %".50" = mul i64 0, 16
  %".51" = add i64 %".50", 0
  %".52" = getelementptr inbounds float, ptr %".4", i64 %".51"
  %".53" = load <16 x float>, ptr %".52", align 4
  %".54" = mul i64 1, 16
  %".55" = add i64 %".54", 0
  %".56" = getelementptr inbounds float, ptr %".4", i64 %".55"
  %".57" = load <16 x float>, ptr %".56", align 4
  %".58" = mul i64 2, 16
  %".59" = add i64 %".58", 0
  %".60" = getelementptr inbounds float, ptr %".4", i64 %".59"
  %".61" = load <16 x float>, ptr %".60", align 4
  %".62" = mul i64 3, 16
  %".63" = add i64 %".62", 0
  %".64" = getelementptr inbounds float, ptr %".4", i64 %".63"
  %".65" = load <16 x float>, ptr %".64", align 4
  %".66" = shufflevector <16 x float> %".53", <16 x float> %".57", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".67" = shufflevector <16 x float> %".53", <16 x float> %".57", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".68" = shufflevector <16 x float> %".61", <16 x float> %".65", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".69" = shufflevector <16 x float> %".61", <16 x float> %".65", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".70" = shufflevector <16 x float> %".66", <16 x float> %".68", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".71" = shufflevector <16 x float> %".66", <16 x float> %".68", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".72" = shufflevector <16 x float> %".67", <16 x float> %".69", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".73" = shufflevector <16 x float> %".67", <16 x float> %".69", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".74" = shufflevector <16 x float> %".70", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".75" = shufflevector <16 x float> %".70", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".76" = shufflevector <16 x float> %".70", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".77" = shufflevector <16 x float> %".70", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".78" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".79" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".80" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".81" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".82" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".83" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".84" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".85" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".86" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".87" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".88" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".89" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".90" = getelementptr inbounds float, ptr %".5", i64 0
  %".91" = load <4 x float>, ptr %".90", align 4
  %".92" = fcmp ogt <4 x float> %".74", %".91"
  %".93" = select  <4 x i1> %".92", <4 x float> %".74", <4 x float> %".91"
  %".94" = fcmp uno <4 x float> %".74", %".74"
  %".95" = select  <4 x i1> %".94", <4 x float> %".74", <4 x float> %".93"
  %".96" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".95", ptr %".96", align 4
  %".98" = getelementptr inbounds float, ptr %".5", i64 0
  %".99" = load <4 x float>, ptr %".98", align 4
  %".100" = fcmp ogt <4 x float> %".75", %".99"
  %".101" = select  <4 x i1> %".100", <4 x float> %".75", <4 x float> %".99"
  %".102" = fcmp uno <4 x float> %".75", %".75"
  %".103" = select  <4 x i1> %".102", <4 x float> %".75", <4 x float> %".101"
  %".104" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".103", ptr %".104", align 4
  %".106" = getelementptr inbounds float, ptr %".5", i64 0
  %".107" = load <4 x float>, ptr %".106", align 4
  %".108" = fcmp ogt <4 x float> %".76", %".107"
  %".109" = select  <4 x i1> %".108", <4 x float> %".76", <4 x float> %".107"
  %".110" = fcmp uno <4 x float> %".76", %".76"
  %".111" = select  <4 x i1> %".110", <4 x float> %".76", <4 x float> %".109"
  %".112" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".111", ptr %".112", align 4
  %".114" = getelementptr inbounds float, ptr %".5", i64 0
  %".115" = load <4 x float>, ptr %".114", align 4
  %".116" = fcmp ogt <4 x float> %".77", %".115"
  %".117" = select  <4 x i1> %".116", <4 x float> %".77", <4 x float> %".115"
  %".118" = fcmp uno <4 x float> %".77", %".77"
  %".119" = select  <4 x i1> %".118", <4 x float> %".77", <4 x float> %".117"
  %".120" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".119", ptr %".120", align 4
  %".122" = getelementptr inbounds float, ptr %".5", i64 0
  %".123" = load <4 x float>, ptr %".122", align 4
  %".124" = fcmp ogt <4 x float> %".78", %".123"
  %".125" = select  <4 x i1> %".124", <4 x float> %".78", <4 x float> %".123"
  %".126" = fcmp uno <4 x float> %".78", %".78"
  %".127" = select  <4 x i1> %".126", <4 x float> %".78", <4 x float> %".125"
  %".128" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".127", ptr %".128", align 4
  %".130" = getelementptr inbounds float, ptr %".5", i64 0
  %".131" = load <4 x float>, ptr %".130", align 4
  %".132" = fcmp ogt <4 x float> %".79", %".131"
  %".133" = select  <4 x i1> %".132", <4 x float> %".79", <4 x float> %".131"
  %".134" = fcmp uno <4 x float> %".79", %".79"
  %".135" = select  <4 x i1> %".134", <4 x float> %".79", <4 x float> %".133"
  %".136" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".135", ptr %".136", align 4
  %".138" = getelementptr inbounds float, ptr %".5", i64 0
  %".139" = load <4 x float>, ptr %".138", align 4
  %".140" = fcmp ogt <4 x float> %".80", %".139"
  %".141" = select  <4 x i1> %".140", <4 x float> %".80", <4 x float> %".139"
  %".142" = fcmp uno <4 x float> %".80", %".80"
  %".143" = select  <4 x i1> %".142", <4 x float> %".80", <4 x float> %".141"
  %".144" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".143", ptr %".144", align 4
  %".146" = getelementptr inbounds float, ptr %".5", i64 0
  %".147" = load <4 x float>, ptr %".146", align 4
  %".148" = fcmp ogt <4 x float> %".81", %".147"
  %".149" = select  <4 x i1> %".148", <4 x float> %".81", <4 x float> %".147"
  %".150" = fcmp uno <4 x float> %".81", %".81"
  %".151" = select  <4 x i1> %".150", <4 x float> %".81", <4 x float> %".149"
  %".152" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".151", ptr %".152", align 4
  %".154" = getelementptr inbounds float, ptr %".5", i64 0
  %".155" = load <4 x float>, ptr %".154", align 4
  %".156" = fcmp ogt <4 x float> %".82", %".155"
  %".157" = select  <4 x i1> %".156", <4 x float> %".82", <4 x float> %".155"
  %".158" = fcmp uno <4 x float> %".82", %".82"
  %".159" = select  <4 x i1> %".158", <4 x float> %".82", <4 x float> %".157"
  %".160" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".159", ptr %".160", align 4
  %".162" = getelementptr inbounds float, ptr %".5", i64 0
  %".163" = load <4 x float>, ptr %".162", align 4
  %".164" = fcmp ogt <4 x float> %".83", %".163"
  %".165" = select  <4 x i1> %".164", <4 x float> %".83", <4 x float> %".163"
  %".166" = fcmp uno <4 x float> %".83", %".83"
  %".167" = select  <4 x i1> %".166", <4 x float> %".83", <4 x float> %".165"
  %".168" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".167", ptr %".168", align 4
  %".170" = getelementptr inbounds float, ptr %".5", i64 0
  %".171" = load <4 x float>, ptr %".170", align 4
  %".172" = fcmp ogt <4 x float> %".84", %".171"
  %".173" = select  <4 x i1> %".172", <4 x float> %".84", <4 x float> %".171"
  %".174" = fcmp uno <4 x float> %".84", %".84"
  %".175" = select  <4 x i1> %".174", <4 x float> %".84", <4 x float> %".173"
  %".176" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".175", ptr %".176", align 4
  %".178" = getelementptr inbounds float, ptr %".5", i64 0
  %".179" = load <4 x float>, ptr %".178", align 4
  %".180" = fcmp ogt <4 x float> %".85", %".179"
  %".181" = select  <4 x i1> %".180", <4 x float> %".85", <4 x float> %".179"
  %".182" = fcmp uno <4 x float> %".85", %".85"
  %".183" = select  <4 x i1> %".182", <4 x float> %".85", <4 x float> %".181"
  %".184" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".183", ptr %".184", align 4
  %".186" = getelementptr inbounds float, ptr %".5", i64 0
  %".187" = load <4 x float>, ptr %".186", align 4
  %".188" = fcmp ogt <4 x float> %".86", %".187"
  %".189" = select  <4 x i1> %".188", <4 x float> %".86", <4 x float> %".187"
  %".190" = fcmp uno <4 x float> %".86", %".86"
  %".191" = select  <4 x i1> %".190", <4 x float> %".86", <4 x float> %".189"
  %".192" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".191", ptr %".192", align 4
  %".194" = getelementptr inbounds float, ptr %".5", i64 0
  %".195" = load <4 x float>, ptr %".194", align 4
  %".196" = fcmp ogt <4 x float> %".87", %".195"
  %".197" = select  <4 x i1> %".196", <4 x float> %".87", <4 x float> %".195"
  %".198" = fcmp uno <4 x float> %".87", %".87"
  %".199" = select  <4 x i1> %".198", <4 x float> %".87", <4 x float> %".197"
  %".200" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".199", ptr %".200", align 4
  %".202" = getelementptr inbounds float, ptr %".5", i64 0
  %".203" = load <4 x float>, ptr %".202", align 4
  %".204" = fcmp ogt <4 x float> %".88", %".203"
  %".205" = select  <4 x i1> %".204", <4 x float> %".88", <4 x float> %".203"
  %".206" = fcmp uno <4 x float> %".88", %".88"
  %".207" = select  <4 x i1> %".206", <4 x float> %".88", <4 x float> %".205"
  %".208" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".207", ptr %".208", align 4
  %".210" = getelementptr inbounds float, ptr %".5", i64 0
  %".211" = load <4 x float>, ptr %".210", align 4
  %".212" = fcmp ogt <4 x float> %".89", %".211"
  %".213" = select  <4 x i1> %".212", <4 x float> %".89", <4 x float> %".211"
  %".214" = fcmp uno <4 x float> %".89", %".89"
  %".215" = select  <4 x i1> %".214", <4 x float> %".89", <4 x float> %".213"
  %".216" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".215", ptr %".216", align 4
  br label %"softmax_expsum_rf_i0.header"
softmax_maxelem_rf_k_o.header:
  %"softmax_maxelem_rf_k_o" = phi  i64 [0, %"softmax_maxelem_rf_i0.body"], [%"softmax_maxelem_rf_k_o.next", %"softmax_maxelem_rf_k_o.body"]
  %".15" = icmp slt i64 %"softmax_maxelem_rf_k_o", 2
  br i1 %".15", label %"softmax_maxelem_rf_k_o.body", label %"softmax_maxelem_rf_k_o.exit"
softmax_maxelem_rf_k_o.body:
  %".17" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".18" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".19" = getelementptr inbounds float, ptr %".4", i64 %".18"
  %".20" = load <16 x float>, ptr %".19", align 4
  %".21" = mul i64 %"softmax_maxelem_rf_i0", 40
  %".22" = mul i64 %"softmax_maxelem_rf_k_o", 16
  %".23" = add i64 %".21", %".22"
  %".24" = getelementptr inbounds float, ptr %"p0", i64 %".23"
  %".25" = load <16 x float>, ptr %".24", align 4
  %".26" = fcmp ogt <16 x float> %".25", %".20"
  %".27" = select  <16 x i1> %".26", <16 x float> %".25", <16 x float> %".20"
  %".28" = fcmp uno <16 x float> %".25", %".25"
  %".29" = select  <16 x i1> %".28", <16 x float> %".25", <16 x float> %".27"
  %".30" = getelementptr inbounds float, ptr %".4", i64 %".17"
  store <16 x float> %".29", ptr %".30", align 4
  %"softmax_maxelem_rf_k_o.next" = add nsw i64 %"softmax_maxelem_rf_k_o", 1
  br label %"softmax_maxelem_rf_k_o.header"
softmax_maxelem_rf_k_o.exit:
  %".33" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".34" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".35" = getelementptr inbounds float, ptr %".4", i64 %".34"
  %".36" = load <8 x float>, ptr %".35", align 4
  %".37" = mul i64 %"softmax_maxelem_rf_i0", 40
  %".38" = add i64 %".37", 32
  %".39" = getelementptr inbounds float, ptr %"p0", i64 %".38"
  %".40" = load <8 x float>, ptr %".39", align 4
  %".41" = fcmp ogt <8 x float> %".40", %".36"
  %".42" = select  <8 x i1> %".41", <8 x float> %".40", <8 x float> %".36"
  %".43" = fcmp uno <8 x float> %".40", %".40"
  %".44" = select  <8 x i1> %".43", <8 x float> %".40", <8 x float> %".42"
  %".45" = getelementptr inbounds float, ptr %".4", i64 %".33"
  store <8 x float> %".44", ptr %".45", align 4
  %"softmax_maxelem_rf_i0.next" = add nsw i64 %"softmax_maxelem_rf_i0", 1
  br label %"softmax_maxelem_rf_i0.header"
softmax_expsum_rf_i0.header:
  %"softmax_expsum_rf_i0" = phi  i64 [0, %"softmax_maxelem_rf_i0.exit"], [%"softmax_expsum_rf_i0.next", %"softmax_expsum_rf_k_o.exit"]
  %".219" = icmp slt i64 %"softmax_expsum_rf_i0", 4
  br i1 %".219", label %"softmax_expsum_rf_i0.body", label %"softmax_expsum_rf_i0.exit"
softmax_expsum_rf_i0.body:
  %".221" = mul i64 %"softmax_expsum_rf_i0", 16
  %".222" = getelementptr inbounds float, ptr %".6", i64 %".221"
  store <16 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".222", align 4
  br label %"softmax_expsum_rf_k_o.header"
softmax_expsum_rf_i0.exit:
  %".325" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".325", align 4
  %".327" = mul i64 0, 16
  %".328" = add i64 %".327", 0
  %".329" = getelementptr inbounds float, ptr %".6", i64 %".328"
  %".330" = load <16 x float>, ptr %".329", align 4
  %".331" = mul i64 1, 16
  %".332" = add i64 %".331", 0
  %".333" = getelementptr inbounds float, ptr %".6", i64 %".332"
  %".334" = load <16 x float>, ptr %".333", align 4
  %".335" = mul i64 2, 16
  %".336" = add i64 %".335", 0
  %".337" = getelementptr inbounds float, ptr %".6", i64 %".336"
  %".338" = load <16 x float>, ptr %".337", align 4
  %".339" = mul i64 3, 16
  %".340" = add i64 %".339", 0
  %".341" = getelementptr inbounds float, ptr %".6", i64 %".340"
  %".342" = load <16 x float>, ptr %".341", align 4
  %".343" = shufflevector <16 x float> %".330", <16 x float> %".334", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".344" = shufflevector <16 x float> %".330", <16 x float> %".334", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".345" = shufflevector <16 x float> %".338", <16 x float> %".342", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".346" = shufflevector <16 x float> %".338", <16 x float> %".342", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".347" = shufflevector <16 x float> %".343", <16 x float> %".345", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".348" = shufflevector <16 x float> %".343", <16 x float> %".345", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".349" = shufflevector <16 x float> %".344", <16 x float> %".346", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".350" = shufflevector <16 x float> %".344", <16 x float> %".346", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".351" = shufflevector <16 x float> %".347", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".352" = shufflevector <16 x float> %".347", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".353" = shufflevector <16 x float> %".347", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".354" = shufflevector <16 x float> %".347", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".355" = shufflevector <16 x float> %".349", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".356" = shufflevector <16 x float> %".349", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".357" = shufflevector <16 x float> %".349", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".358" = shufflevector <16 x float> %".349", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".359" = shufflevector <16 x float> %".348", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".360" = shufflevector <16 x float> %".348", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".361" = shufflevector <16 x float> %".348", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".362" = shufflevector <16 x float> %".348", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".363" = shufflevector <16 x float> %".350", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".364" = shufflevector <16 x float> %".350", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".365" = shufflevector <16 x float> %".350", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".366" = shufflevector <16 x float> %".350", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".367" = getelementptr inbounds float, ptr %".7", i64 0
  %".368" = load <4 x float>, ptr %".367", align 4
  %".369" = fadd contract <4 x float> %".368", %".351"
  %".370" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".369", ptr %".370", align 4
  %".372" = getelementptr inbounds float, ptr %".7", i64 0
  %".373" = load <4 x float>, ptr %".372", align 4
  %".374" = fadd contract <4 x float> %".373", %".352"
  %".375" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".374", ptr %".375", align 4
  %".377" = getelementptr inbounds float, ptr %".7", i64 0
  %".378" = load <4 x float>, ptr %".377", align 4
  %".379" = fadd contract <4 x float> %".378", %".353"
  %".380" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".379", ptr %".380", align 4
  %".382" = getelementptr inbounds float, ptr %".7", i64 0
  %".383" = load <4 x float>, ptr %".382", align 4
  %".384" = fadd contract <4 x float> %".383", %".354"
  %".385" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".384", ptr %".385", align 4
  %".387" = getelementptr inbounds float, ptr %".7", i64 0
  %".388" = load <4 x float>, ptr %".387", align 4
  %".389" = fadd contract <4 x float> %".388", %".355"
  %".390" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".389", ptr %".390", align 4
  %".392" = getelementptr inbounds float, ptr %".7", i64 0
  %".393" = load <4 x float>, ptr %".392", align 4
  %".394" = fadd contract <4 x float> %".393", %".356"
  %".395" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".394", ptr %".395", align 4
  %".397" = getelementptr inbounds float, ptr %".7", i64 0
  %".398" = load <4 x float>, ptr %".397", align 4
  %".399" = fadd contract <4 x float> %".398", %".357"
  %".400" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".399", ptr %".400", align 4
  %".402" = getelementptr inbounds float, ptr %".7", i64 0
  %".403" = load <4 x float>, ptr %".402", align 4
  %".404" = fadd contract <4 x float> %".403", %".358"
  %".405" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".404", ptr %".405", align 4
  %".407" = getelementptr inbounds float, ptr %".7", i64 0
  %".408" = load <4 x float>, ptr %".407", align 4
  %".409" = fadd contract <4 x float> %".408", %".359"
  %".410" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".409", ptr %".410", align 4
  %".412" = getelementptr inbounds float, ptr %".7", i64 0
  %".413" = load <4 x float>, ptr %".412", align 4
  %".414" = fadd contract <4 x float> %".413", %".360"
  %".415" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".414", ptr %".415", align 4
  %".417" = getelementptr inbounds float, ptr %".7", i64 0
  %".418" = load <4 x float>, ptr %".417", align 4
  %".419" = fadd contract <4 x float> %".418", %".361"
  %".420" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".419", ptr %".420", align 4
  %".422" = getelementptr inbounds float, ptr %".7", i64 0
  %".423" = load <4 x float>, ptr %".422", align 4
  %".424" = fadd contract <4 x float> %".423", %".362"
  %".425" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".424", ptr %".425", align 4
  %".427" = getelementptr inbounds float, ptr %".7", i64 0
  %".428" = load <4 x float>, ptr %".427", align 4
  %".429" = fadd contract <4 x float> %".428", %".363"
  %".430" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".429", ptr %".430", align 4
  %".432" = getelementptr inbounds float, ptr %".7", i64 0
  %".433" = load <4 x float>, ptr %".432", align 4
  %".434" = fadd contract <4 x float> %".433", %".364"
  %".435" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".434", ptr %".435", align 4
  %".437" = getelementptr inbounds float, ptr %".7", i64 0
  %".438" = load <4 x float>, ptr %".437", align 4
  %".439" = fadd contract <4 x float> %".438", %".365"
  %".440" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".439", ptr %".440", align 4
  %".442" = getelementptr inbounds float, ptr %".7", i64 0
  %".443" = load <4 x float>, ptr %".442", align 4
  %".444" = fadd contract <4 x float> %".443", %".366"
  %".445" = getelementptr inbounds float, ptr %".7", i64 0
  store <4 x float> %".444", ptr %".445", align 4
  br label %"softmax_i0.header"
softmax_expsum_rf_k_o.header:
  %"softmax_expsum_rf_k_o" = phi  i64 [0, %"softmax_expsum_rf_i0.body"], [%"softmax_expsum_rf_k_o.next", %"softmax_expsum_rf_k_o.body"]
  %".225" = icmp slt i64 %"softmax_expsum_rf_k_o", 2
  br i1 %".225", label %"softmax_expsum_rf_k_o.body", label %"softmax_expsum_rf_k_o.exit"
softmax_expsum_rf_k_o.body:
  %".227" = mul i64 %"softmax_expsum_rf_i0", 16
  %".228" = mul i64 %"softmax_expsum_rf_i0", 16
  %".229" = getelementptr inbounds float, ptr %".6", i64 %".228"
  %".230" = load <16 x float>, ptr %".229", align 4
  %".231" = mul i64 %"softmax_expsum_rf_i0", 40
  %".232" = mul i64 %"softmax_expsum_rf_k_o", 16
  %".233" = add i64 %".231", %".232"
  %".234" = getelementptr inbounds float, ptr %"p0", i64 %".233"
  %".235" = load <16 x float>, ptr %".234", align 4
  %".236" = getelementptr inbounds float, ptr %".5", i64 %"softmax_expsum_rf_i0"
  %".237" = load float, ptr %".236", align 4
  %".238" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".237", i32 0
  %".239" = shufflevector <16 x float> %".238", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".240" = fsub contract <16 x float> %".235", %".239"
  %".241" = fcmp olt <16 x float> %".240", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".242" = select  <16 x i1> %".241", <16 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <16 x float> %".240"
  %".243" = fcmp ogt <16 x float> %".242", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".244" = select  <16 x i1> %".243", <16 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <16 x float> %".242"
  %".245" = fmul contract <16 x float> %".244", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".246" = fadd contract <16 x float> %".245", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".247" = fsub <16 x float> %".246", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".248" = fmul contract <16 x float> %".247", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".249" = fsub <16 x float> %".244", %".248"
  %".250" = fmul contract <16 x float> %".247", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".251" = fsub <16 x float> %".249", %".250"
  %".252" = fmul contract <16 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".251"
  %".253" = fadd contract <16 x float> %".252", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".254" = fmul contract <16 x float> %".253", %".251"
  %".255" = fadd contract <16 x float> %".254", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".256" = fmul contract <16 x float> %".255", %".251"
  %".257" = fadd contract <16 x float> %".256", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".258" = fmul contract <16 x float> %".257", %".251"
  %".259" = fadd contract <16 x float> %".258", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".260" = fmul contract <16 x float> %".259", %".251"
  %".261" = fadd contract <16 x float> %".260", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".262" = fmul contract <16 x float> %".261", %".251"
  %".263" = fmul contract <16 x float> %".262", %".251"
  %".264" = fadd contract <16 x float> %".263", %".251"
  %".265" = fadd contract <16 x float> %".264", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".266" = call <16 x float> @"llvm.x86.avx512.mask.scalef.ps.512"(<16 x float> %".265", <16 x float> %".247", <16 x float> %".265", i16 -1, i32 4)
  %".267" = fadd contract <16 x float> %".230", %".266"
  %".268" = getelementptr inbounds float, ptr %".6", i64 %".227"
  store <16 x float> %".267", ptr %".268", align 4
  %"softmax_expsum_rf_k_o.next" = add nsw i64 %"softmax_expsum_rf_k_o", 1
  br label %"softmax_expsum_rf_k_o.header"
softmax_expsum_rf_k_o.exit:
  %".271" = mul i64 %"softmax_expsum_rf_i0", 16
  %".272" = mul i64 %"softmax_expsum_rf_i0", 16
  %".273" = getelementptr inbounds float, ptr %".6", i64 %".272"
  %".274" = load <8 x float>, ptr %".273", align 4
  %".275" = mul i64 %"softmax_expsum_rf_i0", 40
  %".276" = add i64 %".275", 32
  %".277" = getelementptr inbounds float, ptr %"p0", i64 %".276"
  %".278" = load <8 x float>, ptr %".277", align 4
  %".279" = getelementptr inbounds float, ptr %".5", i64 %"softmax_expsum_rf_i0"
  %".280" = load float, ptr %".279", align 4
  %".281" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".280", i32 0
  %".282" = shufflevector <8 x float> %".281", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".283" = fsub contract <8 x float> %".278", %".282"
  %".284" = fcmp olt <8 x float> %".283", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".285" = select  <8 x i1> %".284", <8 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <8 x float> %".283"
  %".286" = fcmp ogt <8 x float> %".285", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".287" = select  <8 x i1> %".286", <8 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <8 x float> %".285"
  %".288" = fmul contract <8 x float> %".287", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".289" = fadd contract <8 x float> %".288", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".290" = fsub <8 x float> %".289", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".291" = fmul contract <8 x float> %".290", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".292" = fsub <8 x float> %".287", %".291"
  %".293" = fmul contract <8 x float> %".290", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".294" = fsub <8 x float> %".292", %".293"
  %".295" = fmul contract <8 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".294"
  %".296" = fadd contract <8 x float> %".295", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".297" = fmul contract <8 x float> %".296", %".294"
  %".298" = fadd contract <8 x float> %".297", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".299" = fmul contract <8 x float> %".298", %".294"
  %".300" = fadd contract <8 x float> %".299", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".301" = fmul contract <8 x float> %".300", %".294"
  %".302" = fadd contract <8 x float> %".301", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".303" = fmul contract <8 x float> %".302", %".294"
  %".304" = fadd contract <8 x float> %".303", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".305" = fmul contract <8 x float> %".304", %".294"
  %".306" = fmul contract <8 x float> %".305", %".294"
  %".307" = fadd contract <8 x float> %".306", %".294"
  %".308" = fadd contract <8 x float> %".307", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".309" = bitcast <8 x float> %".289" to <8 x i32>
  %".310" = sub <8 x i32> %".309", <i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504>
  %".311" = ashr <8 x i32> %".310", <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %".312" = sub <8 x i32> %".310", %".311"
  %".313" = add <8 x i32> %".311", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".314" = shl <8 x i32> %".313", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".315" = bitcast <8 x i32> %".314" to <8 x float>
  %".316" = add <8 x i32> %".312", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".317" = shl <8 x i32> %".316", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".318" = bitcast <8 x i32> %".317" to <8 x float>
  %".319" = fmul contract <8 x float> %".308", %".315"
  %".320" = fmul contract <8 x float> %".319", %".318"
  %".321" = fadd contract <8 x float> %".274", %".320"
  %".322" = getelementptr inbounds float, ptr %".6", i64 %".271"
  store <8 x float> %".321", ptr %".322", align 4
  %"softmax_expsum_rf_i0.next" = add nsw i64 %"softmax_expsum_rf_i0", 1
  br label %"softmax_expsum_rf_i0.header"
softmax_i0.header:
  %"softmax_i0" = phi  i64 [0, %"softmax_expsum_rf_i0.exit"], [%"softmax_i0.next", %"softmax_i1_o.exit"]
  %".448" = icmp slt i64 %"softmax_i0", 4
  br i1 %".448", label %"softmax_i0.body", label %"softmax_i0.exit"
softmax_i0.body:
  br label %"softmax_i1_o.header"
softmax_i0.exit:
  ret void
softmax_i1_o.header:
  %"softmax_i1_o" = phi  i64 [0, %"softmax_i0.body"], [%"softmax_i1_o.next", %"softmax_i1_o.body"]
  %".451" = icmp slt i64 %"softmax_i1_o", 2
  br i1 %".451", label %"softmax_i1_o.body", label %"softmax_i1_o.exit"
softmax_i1_o.body:
  %".453" = mul i64 %"softmax_i0", 40
  %".454" = mul i64 %"softmax_i1_o", 16
  %".455" = add i64 %".453", %".454"
  %".456" = mul i64 %"softmax_i0", 40
  %".457" = mul i64 %"softmax_i1_o", 16
  %".458" = add i64 %".456", %".457"
  %".459" = getelementptr inbounds float, ptr %"p0", i64 %".458"
  %".460" = load <16 x float>, ptr %".459", align 4
  %".461" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".462" = load float, ptr %".461", align 4
  %".463" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".462", i32 0
  %".464" = shufflevector <16 x float> %".463", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".465" = fsub contract <16 x float> %".460", %".464"
  %".466" = fcmp olt <16 x float> %".465", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".467" = select  <16 x i1> %".466", <16 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <16 x float> %".465"
  %".468" = fcmp ogt <16 x float> %".467", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".469" = select  <16 x i1> %".468", <16 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <16 x float> %".467"
  %".470" = fmul contract <16 x float> %".469", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".471" = fadd contract <16 x float> %".470", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".472" = fsub <16 x float> %".471", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".473" = fmul contract <16 x float> %".472", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".474" = fsub <16 x float> %".469", %".473"
  %".475" = fmul contract <16 x float> %".472", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".476" = fsub <16 x float> %".474", %".475"
  %".477" = fmul contract <16 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".476"
  %".478" = fadd contract <16 x float> %".477", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".479" = fmul contract <16 x float> %".478", %".476"
  %".480" = fadd contract <16 x float> %".479", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".481" = fmul contract <16 x float> %".480", %".476"
  %".482" = fadd contract <16 x float> %".481", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".483" = fmul contract <16 x float> %".482", %".476"
  %".484" = fadd contract <16 x float> %".483", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".485" = fmul contract <16 x float> %".484", %".476"
  %".486" = fadd contract <16 x float> %".485", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".487" = fmul contract <16 x float> %".486", %".476"
  %".488" = fmul contract <16 x float> %".487", %".476"
  %".489" = fadd contract <16 x float> %".488", %".476"
  %".490" = fadd contract <16 x float> %".489", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".491" = call <16 x float> @"llvm.x86.avx512.mask.scalef.ps.512"(<16 x float> %".490", <16 x float> %".472", <16 x float> %".490", i16 -1, i32 4)
  %".492" = getelementptr inbounds float, ptr %".7", i64 %"softmax_i0"
  %".493" = load float, ptr %".492", align 4
  %".494" = fdiv float 0x3ff0000000000000, %".493"
  %".495" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".494", i32 0
  %".496" = shufflevector <16 x float> %".495", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".497" = fmul contract <16 x float> %".491", %".496"
  %".498" = getelementptr inbounds float, ptr %"softmax", i64 %".455"
  store <16 x float> %".497", ptr %".498", align 4
  %"softmax_i1_o.next" = add nsw i64 %"softmax_i1_o", 1
  br label %"softmax_i1_o.header"
softmax_i1_o.exit:
  %".501" = mul i64 %"softmax_i0", 40
  %".502" = add i64 %".501", 32
  %".503" = mul i64 %"softmax_i0", 40
  %".504" = add i64 %".503", 32
  %".505" = getelementptr inbounds float, ptr %"p0", i64 %".504"
  %".506" = load <8 x float>, ptr %".505", align 4
  %".507" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".508" = load float, ptr %".507", align 4
  %".509" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".508", i32 0
  %".510" = shufflevector <8 x float> %".509", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".511" = fsub contract <8 x float> %".506", %".510"
  %".512" = fcmp olt <8 x float> %".511", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".513" = select  <8 x i1> %".512", <8 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <8 x float> %".511"
  %".514" = fcmp ogt <8 x float> %".513", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".515" = select  <8 x i1> %".514", <8 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <8 x float> %".513"
  %".516" = fmul contract <8 x float> %".515", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".517" = fadd contract <8 x float> %".516", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".518" = fsub <8 x float> %".517", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".519" = fmul contract <8 x float> %".518", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".520" = fsub <8 x float> %".515", %".519"
  %".521" = fmul contract <8 x float> %".518", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".522" = fsub <8 x float> %".520", %".521"
  %".523" = fmul contract <8 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".522"
  %".524" = fadd contract <8 x float> %".523", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".525" = fmul contract <8 x float> %".524", %".522"
  %".526" = fadd contract <8 x float> %".525", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".527" = fmul contract <8 x float> %".526", %".522"
  %".528" = fadd contract <8 x float> %".527", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".529" = fmul contract <8 x float> %".528", %".522"
  %".530" = fadd contract <8 x float> %".529", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".531" = fmul contract <8 x float> %".530", %".522"
  %".532" = fadd contract <8 x float> %".531", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".533" = fmul contract <8 x float> %".532", %".522"
  %".534" = fmul contract <8 x float> %".533", %".522"
  %".535" = fadd contract <8 x float> %".534", %".522"
  %".536" = fadd contract <8 x float> %".535", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".537" = bitcast <8 x float> %".517" to <8 x i32>
  %".538" = sub <8 x i32> %".537", <i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504>
  %".539" = ashr <8 x i32> %".538", <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %".540" = sub <8 x i32> %".538", %".539"
  %".541" = add <8 x i32> %".539", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".542" = shl <8 x i32> %".541", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".543" = bitcast <8 x i32> %".542" to <8 x float>
  %".544" = add <8 x i32> %".540", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".545" = shl <8 x i32> %".544", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".546" = bitcast <8 x i32> %".545" to <8 x float>
  %".547" = fmul contract <8 x float> %".536", %".543"
  %".548" = fmul contract <8 x float> %".547", %".546"
  %".549" = getelementptr inbounds float, ptr %".7", i64 %"softmax_i0"
  %".550" = load float, ptr %".549", align 4
  %".551" = fdiv float 0x3ff0000000000000, %".550"
  %".552" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".551", i32 0
  %".553" = shufflevector <8 x float> %".552", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".554" = fmul contract <8 x float> %".548", %".553"
  %".555" = getelementptr inbounds float, ptr %"softmax", i64 %".502"
  store <8 x float> %".554", ptr %".555", align 4
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
