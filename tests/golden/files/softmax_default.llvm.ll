define void @"fused_nn_softmax"(ptr noalias nonnull %"p0", ptr noalias nonnull %"softmax") nounwind
{
entry:
  %".4" = alloca [64 x float], align 64
  %".5" = alloca [4 x float], align 64
  %".6" = alloca [192 x float], align 64
  %".7" = alloca [64 x float], align 64
  %".8" = alloca [4 x float], align 64
  br label %"body"
body:
  br label %"softmax_maxelem_rf_i0.header"
softmax_maxelem_rf_i0.header:
  %"softmax_maxelem_rf_i0" = phi  i64 [0, %"body"], [%"softmax_maxelem_rf_i0.next", %"softmax_maxelem_rf_k_o.exit"]
  %".10" = icmp slt i64 %"softmax_maxelem_rf_i0", 4
  br i1 %".10", label %"softmax_maxelem_rf_i0.body", label %"softmax_maxelem_rf_i0.exit"
softmax_maxelem_rf_i0.body:
  %".12" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".13" = getelementptr inbounds float, ptr %".4", i64 %".12"
  store <16 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".13", align 4
  br label %"softmax_maxelem_rf_k_o.header"
softmax_maxelem_rf_i0.exit:
  %".49" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".49", align 4
  %".51" = mul i64 0, 16
  %".52" = add i64 %".51", 0
  %".53" = getelementptr inbounds float, ptr %".4", i64 %".52"
  %".54" = load <16 x float>, ptr %".53", align 4
  %".55" = mul i64 1, 16
  %".56" = add i64 %".55", 0
  %".57" = getelementptr inbounds float, ptr %".4", i64 %".56"
  %".58" = load <16 x float>, ptr %".57", align 4
  %".59" = mul i64 2, 16
  %".60" = add i64 %".59", 0
  %".61" = getelementptr inbounds float, ptr %".4", i64 %".60"
  %".62" = load <16 x float>, ptr %".61", align 4
  %".63" = mul i64 3, 16
  %".64" = add i64 %".63", 0
  %".65" = getelementptr inbounds float, ptr %".4", i64 %".64"
  %".66" = load <16 x float>, ptr %".65", align 4
  %".67" = shufflevector <16 x float> %".54", <16 x float> %".58", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".68" = shufflevector <16 x float> %".54", <16 x float> %".58", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".69" = shufflevector <16 x float> %".62", <16 x float> %".66", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".70" = shufflevector <16 x float> %".62", <16 x float> %".66", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".71" = shufflevector <16 x float> %".67", <16 x float> %".69", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".72" = shufflevector <16 x float> %".67", <16 x float> %".69", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".73" = shufflevector <16 x float> %".68", <16 x float> %".70", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".74" = shufflevector <16 x float> %".68", <16 x float> %".70", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".75" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".76" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".77" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".78" = shufflevector <16 x float> %".71", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".79" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".80" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".81" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".82" = shufflevector <16 x float> %".73", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".83" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".84" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".85" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".86" = shufflevector <16 x float> %".72", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".87" = shufflevector <16 x float> %".74", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".88" = shufflevector <16 x float> %".74", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".89" = shufflevector <16 x float> %".74", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".90" = shufflevector <16 x float> %".74", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".91" = getelementptr inbounds float, ptr %".5", i64 0
  %".92" = load <4 x float>, ptr %".91", align 4
  %".93" = fcmp ogt <4 x float> %".75", %".92"
  %".94" = select  <4 x i1> %".93", <4 x float> %".75", <4 x float> %".92"
  %".95" = fcmp uno <4 x float> %".75", %".75"
  %".96" = select  <4 x i1> %".95", <4 x float> %".75", <4 x float> %".94"
  %".97" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".96", ptr %".97", align 4
  %".99" = getelementptr inbounds float, ptr %".5", i64 0
  %".100" = load <4 x float>, ptr %".99", align 4
  %".101" = fcmp ogt <4 x float> %".76", %".100"
  %".102" = select  <4 x i1> %".101", <4 x float> %".76", <4 x float> %".100"
  %".103" = fcmp uno <4 x float> %".76", %".76"
  %".104" = select  <4 x i1> %".103", <4 x float> %".76", <4 x float> %".102"
  %".105" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".104", ptr %".105", align 4
  %".107" = getelementptr inbounds float, ptr %".5", i64 0
  %".108" = load <4 x float>, ptr %".107", align 4
  %".109" = fcmp ogt <4 x float> %".77", %".108"
  %".110" = select  <4 x i1> %".109", <4 x float> %".77", <4 x float> %".108"
  %".111" = fcmp uno <4 x float> %".77", %".77"
  %".112" = select  <4 x i1> %".111", <4 x float> %".77", <4 x float> %".110"
  %".113" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".112", ptr %".113", align 4
  %".115" = getelementptr inbounds float, ptr %".5", i64 0
  %".116" = load <4 x float>, ptr %".115", align 4
  %".117" = fcmp ogt <4 x float> %".78", %".116"
  %".118" = select  <4 x i1> %".117", <4 x float> %".78", <4 x float> %".116"
  %".119" = fcmp uno <4 x float> %".78", %".78"
  %".120" = select  <4 x i1> %".119", <4 x float> %".78", <4 x float> %".118"
  %".121" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".120", ptr %".121", align 4
  %".123" = getelementptr inbounds float, ptr %".5", i64 0
  %".124" = load <4 x float>, ptr %".123", align 4
  %".125" = fcmp ogt <4 x float> %".79", %".124"
  %".126" = select  <4 x i1> %".125", <4 x float> %".79", <4 x float> %".124"
  %".127" = fcmp uno <4 x float> %".79", %".79"
  %".128" = select  <4 x i1> %".127", <4 x float> %".79", <4 x float> %".126"
  %".129" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".128", ptr %".129", align 4
  %".131" = getelementptr inbounds float, ptr %".5", i64 0
  %".132" = load <4 x float>, ptr %".131", align 4
  %".133" = fcmp ogt <4 x float> %".80", %".132"
  %".134" = select  <4 x i1> %".133", <4 x float> %".80", <4 x float> %".132"
  %".135" = fcmp uno <4 x float> %".80", %".80"
  %".136" = select  <4 x i1> %".135", <4 x float> %".80", <4 x float> %".134"
  %".137" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".136", ptr %".137", align 4
  %".139" = getelementptr inbounds float, ptr %".5", i64 0
  %".140" = load <4 x float>, ptr %".139", align 4
  %".141" = fcmp ogt <4 x float> %".81", %".140"
  %".142" = select  <4 x i1> %".141", <4 x float> %".81", <4 x float> %".140"
  %".143" = fcmp uno <4 x float> %".81", %".81"
  %".144" = select  <4 x i1> %".143", <4 x float> %".81", <4 x float> %".142"
  %".145" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".144", ptr %".145", align 4
  %".147" = getelementptr inbounds float, ptr %".5", i64 0
  %".148" = load <4 x float>, ptr %".147", align 4
  %".149" = fcmp ogt <4 x float> %".82", %".148"
  %".150" = select  <4 x i1> %".149", <4 x float> %".82", <4 x float> %".148"
  %".151" = fcmp uno <4 x float> %".82", %".82"
  %".152" = select  <4 x i1> %".151", <4 x float> %".82", <4 x float> %".150"
  %".153" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".152", ptr %".153", align 4
  %".155" = getelementptr inbounds float, ptr %".5", i64 0
  %".156" = load <4 x float>, ptr %".155", align 4
  %".157" = fcmp ogt <4 x float> %".83", %".156"
  %".158" = select  <4 x i1> %".157", <4 x float> %".83", <4 x float> %".156"
  %".159" = fcmp uno <4 x float> %".83", %".83"
  %".160" = select  <4 x i1> %".159", <4 x float> %".83", <4 x float> %".158"
  %".161" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".160", ptr %".161", align 4
  %".163" = getelementptr inbounds float, ptr %".5", i64 0
  %".164" = load <4 x float>, ptr %".163", align 4
  %".165" = fcmp ogt <4 x float> %".84", %".164"
  %".166" = select  <4 x i1> %".165", <4 x float> %".84", <4 x float> %".164"
  %".167" = fcmp uno <4 x float> %".84", %".84"
  %".168" = select  <4 x i1> %".167", <4 x float> %".84", <4 x float> %".166"
  %".169" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".168", ptr %".169", align 4
  %".171" = getelementptr inbounds float, ptr %".5", i64 0
  %".172" = load <4 x float>, ptr %".171", align 4
  %".173" = fcmp ogt <4 x float> %".85", %".172"
  %".174" = select  <4 x i1> %".173", <4 x float> %".85", <4 x float> %".172"
  %".175" = fcmp uno <4 x float> %".85", %".85"
  %".176" = select  <4 x i1> %".175", <4 x float> %".85", <4 x float> %".174"
  %".177" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".176", ptr %".177", align 4
  %".179" = getelementptr inbounds float, ptr %".5", i64 0
  %".180" = load <4 x float>, ptr %".179", align 4
  %".181" = fcmp ogt <4 x float> %".86", %".180"
  %".182" = select  <4 x i1> %".181", <4 x float> %".86", <4 x float> %".180"
  %".183" = fcmp uno <4 x float> %".86", %".86"
  %".184" = select  <4 x i1> %".183", <4 x float> %".86", <4 x float> %".182"
  %".185" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".184", ptr %".185", align 4
  %".187" = getelementptr inbounds float, ptr %".5", i64 0
  %".188" = load <4 x float>, ptr %".187", align 4
  %".189" = fcmp ogt <4 x float> %".87", %".188"
  %".190" = select  <4 x i1> %".189", <4 x float> %".87", <4 x float> %".188"
  %".191" = fcmp uno <4 x float> %".87", %".87"
  %".192" = select  <4 x i1> %".191", <4 x float> %".87", <4 x float> %".190"
  %".193" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".192", ptr %".193", align 4
  %".195" = getelementptr inbounds float, ptr %".5", i64 0
  %".196" = load <4 x float>, ptr %".195", align 4
  %".197" = fcmp ogt <4 x float> %".88", %".196"
  %".198" = select  <4 x i1> %".197", <4 x float> %".88", <4 x float> %".196"
  %".199" = fcmp uno <4 x float> %".88", %".88"
  %".200" = select  <4 x i1> %".199", <4 x float> %".88", <4 x float> %".198"
  %".201" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".200", ptr %".201", align 4
  %".203" = getelementptr inbounds float, ptr %".5", i64 0
  %".204" = load <4 x float>, ptr %".203", align 4
  %".205" = fcmp ogt <4 x float> %".89", %".204"
  %".206" = select  <4 x i1> %".205", <4 x float> %".89", <4 x float> %".204"
  %".207" = fcmp uno <4 x float> %".89", %".89"
  %".208" = select  <4 x i1> %".207", <4 x float> %".89", <4 x float> %".206"
  %".209" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".208", ptr %".209", align 4
  %".211" = getelementptr inbounds float, ptr %".5", i64 0
  %".212" = load <4 x float>, ptr %".211", align 4
  %".213" = fcmp ogt <4 x float> %".90", %".212"
  %".214" = select  <4 x i1> %".213", <4 x float> %".90", <4 x float> %".212"
  %".215" = fcmp uno <4 x float> %".90", %".90"
  %".216" = select  <4 x i1> %".215", <4 x float> %".90", <4 x float> %".214"
  %".217" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".216", ptr %".217", align 4
  br label %"softmax_exp_i0.header"
softmax_maxelem_rf_k_o.header:
  %"softmax_maxelem_rf_k_o" = phi  i64 [0, %"softmax_maxelem_rf_i0.body"], [%"softmax_maxelem_rf_k_o.next", %"softmax_maxelem_rf_k_o.body"]
  %".16" = icmp slt i64 %"softmax_maxelem_rf_k_o", 2
  br i1 %".16", label %"softmax_maxelem_rf_k_o.body", label %"softmax_maxelem_rf_k_o.exit"
softmax_maxelem_rf_k_o.body:
  %".18" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".19" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".20" = getelementptr inbounds float, ptr %".4", i64 %".19"
  %".21" = load <16 x float>, ptr %".20", align 4
  %".22" = mul i64 %"softmax_maxelem_rf_i0", 40
  %".23" = mul i64 %"softmax_maxelem_rf_k_o", 16
  %".24" = add i64 %".22", %".23"
  %".25" = getelementptr inbounds float, ptr %"p0", i64 %".24"
  %".26" = load <16 x float>, ptr %".25", align 4
  %".27" = fcmp ogt <16 x float> %".26", %".21"
  %".28" = select  <16 x i1> %".27", <16 x float> %".26", <16 x float> %".21"
  %".29" = fcmp uno <16 x float> %".26", %".26"
  %".30" = select  <16 x i1> %".29", <16 x float> %".26", <16 x float> %".28"
  %".31" = getelementptr inbounds float, ptr %".4", i64 %".18"
  store <16 x float> %".30", ptr %".31", align 4
  %"softmax_maxelem_rf_k_o.next" = add nsw i64 %"softmax_maxelem_rf_k_o", 1
  br label %"softmax_maxelem_rf_k_o.header"
softmax_maxelem_rf_k_o.exit:
  %".34" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".35" = mul i64 %"softmax_maxelem_rf_i0", 16
  %".36" = getelementptr inbounds float, ptr %".4", i64 %".35"
  %".37" = load <8 x float>, ptr %".36", align 4
  %".38" = mul i64 %"softmax_maxelem_rf_i0", 40
  %".39" = add i64 %".38", 32
  %".40" = getelementptr inbounds float, ptr %"p0", i64 %".39"
  %".41" = load <8 x float>, ptr %".40", align 4
  %".42" = fcmp ogt <8 x float> %".41", %".37"
  %".43" = select  <8 x i1> %".42", <8 x float> %".41", <8 x float> %".37"
  %".44" = fcmp uno <8 x float> %".41", %".41"
  %".45" = select  <8 x i1> %".44", <8 x float> %".41", <8 x float> %".43"
  %".46" = getelementptr inbounds float, ptr %".4", i64 %".34"
  store <8 x float> %".45", ptr %".46", align 4
  %"softmax_maxelem_rf_i0.next" = add nsw i64 %"softmax_maxelem_rf_i0", 1
  br label %"softmax_maxelem_rf_i0.header"
softmax_exp_i0.header:
  %"softmax_exp_i0" = phi  i64 [0, %"softmax_maxelem_rf_i0.exit"], [%"softmax_exp_i0.next", %"softmax_exp_i1_o.exit"]
  %".220" = icmp slt i64 %"softmax_exp_i0", 4
  br i1 %".220", label %"softmax_exp_i0.body", label %"softmax_exp_i0.exit"
softmax_exp_i0.body:
  br label %"softmax_exp_i1_o.header"
softmax_exp_i0.exit:
  br label %"softmax_expsum_rf_i0.header"
softmax_exp_i1_o.header:
  %"softmax_exp_i1_o" = phi  i64 [0, %"softmax_exp_i0.body"], [%"softmax_exp_i1_o.next", %"softmax_exp_i1_o.body"]
  %".223" = icmp slt i64 %"softmax_exp_i1_o", 2
  br i1 %".223", label %"softmax_exp_i1_o.body", label %"softmax_exp_i1_o.exit"
softmax_exp_i1_o.body:
  %".225" = mul i64 %"softmax_exp_i0", 48
  %".226" = mul i64 %"softmax_exp_i1_o", 16
  %".227" = add i64 %".225", %".226"
  %".228" = mul i64 %"softmax_exp_i0", 40
  %".229" = mul i64 %"softmax_exp_i1_o", 16
  %".230" = add i64 %".228", %".229"
  %".231" = getelementptr inbounds float, ptr %"p0", i64 %".230"
  %".232" = load <16 x float>, ptr %".231", align 4
  %".233" = getelementptr inbounds float, ptr %".5", i64 %"softmax_exp_i0"
  %".234" = load float, ptr %".233", align 4
  %".235" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".234", i32 0
  %".236" = shufflevector <16 x float> %".235", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".237" = fsub contract <16 x float> %".232", %".236"
  %".238" = fcmp olt <16 x float> %".237", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".239" = select  <16 x i1> %".238", <16 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <16 x float> %".237"
  %".240" = fcmp ogt <16 x float> %".239", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".241" = select  <16 x i1> %".240", <16 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <16 x float> %".239"
  %".242" = fmul contract <16 x float> %".241", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".243" = fadd contract <16 x float> %".242", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".244" = fsub <16 x float> %".243", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".245" = fmul contract <16 x float> %".244", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".246" = fsub <16 x float> %".241", %".245"
  %".247" = fmul contract <16 x float> %".244", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".248" = fsub <16 x float> %".246", %".247"
  %".249" = fmul contract <16 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".248"
  %".250" = fadd contract <16 x float> %".249", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".251" = fmul contract <16 x float> %".250", %".248"
  %".252" = fadd contract <16 x float> %".251", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".253" = fmul contract <16 x float> %".252", %".248"
  %".254" = fadd contract <16 x float> %".253", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".255" = fmul contract <16 x float> %".254", %".248"
  %".256" = fadd contract <16 x float> %".255", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".257" = fmul contract <16 x float> %".256", %".248"
  %".258" = fadd contract <16 x float> %".257", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".259" = fmul contract <16 x float> %".258", %".248"
  %".260" = fmul contract <16 x float> %".259", %".248"
  %".261" = fadd contract <16 x float> %".260", %".248"
  %".262" = fadd contract <16 x float> %".261", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".263" = call <16 x float> @"llvm.x86.avx512.mask.scalef.ps.512"(<16 x float> %".262", <16 x float> %".244", <16 x float> %".262", i16 -1, i32 4)
  %".264" = getelementptr inbounds float, ptr %".6", i64 %".227"
  store <16 x float> %".263", ptr %".264", align 4
  %"softmax_exp_i1_o.next" = add nsw i64 %"softmax_exp_i1_o", 1
  br label %"softmax_exp_i1_o.header"
softmax_exp_i1_o.exit:
  %".267" = mul i64 %"softmax_exp_i0", 48
  %".268" = add i64 %".267", 32
  %".269" = mul i64 %"softmax_exp_i0", 40
  %".270" = add i64 %".269", 32
  %".271" = getelementptr inbounds float, ptr %"p0", i64 %".270"
  %".272" = load <8 x float>, ptr %".271", align 4
  %".273" = getelementptr inbounds float, ptr %".5", i64 %"softmax_exp_i0"
  %".274" = load float, ptr %".273", align 4
  %".275" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".274", i32 0
  %".276" = shufflevector <8 x float> %".275", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".277" = fsub contract <8 x float> %".272", %".276"
  %".278" = fcmp olt <8 x float> %".277", <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>
  %".279" = select  <8 x i1> %".278", <8 x float> <float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000, float 0xc059fe36a0000000>, <8 x float> %".277"
  %".280" = fcmp ogt <8 x float> %".279", <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>
  %".281" = select  <8 x i1> %".280", <8 x float> <float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000, float 0x4056400000000000>, <8 x float> %".279"
  %".282" = fmul contract <8 x float> %".281", <float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000, float 0x3ff7154760000000>
  %".283" = fadd contract <8 x float> %".282", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".284" = fsub <8 x float> %".283", <float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000, float 0x4168000000000000>
  %".285" = fmul contract <8 x float> %".284", <float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000, float 0x3fe6300000000000>
  %".286" = fsub <8 x float> %".281", %".285"
  %".287" = fmul contract <8 x float> %".284", <float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000, float 0xbf2bd01060000000>
  %".288" = fsub <8 x float> %".286", %".287"
  %".289" = fmul contract <8 x float> <float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000, float 0x3f2a0d2ce0000000>, %".288"
  %".290" = fadd contract <8 x float> %".289", <float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000, float 0x3f56e879c0000000>
  %".291" = fmul contract <8 x float> %".290", %".288"
  %".292" = fadd contract <8 x float> %".291", <float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000, float 0x3f81112100000000>
  %".293" = fmul contract <8 x float> %".292", %".288"
  %".294" = fadd contract <8 x float> %".293", <float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000, float 0x3fa5553820000000>
  %".295" = fmul contract <8 x float> %".294", %".288"
  %".296" = fadd contract <8 x float> %".295", <float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000, float 0x3fc5555540000000>
  %".297" = fmul contract <8 x float> %".296", %".288"
  %".298" = fadd contract <8 x float> %".297", <float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000, float 0x3fe0000000000000>
  %".299" = fmul contract <8 x float> %".298", %".288"
  %".300" = fmul contract <8 x float> %".299", %".288"
  %".301" = fadd contract <8 x float> %".300", %".288"
  %".302" = fadd contract <8 x float> %".301", <float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000, float 0x3ff0000000000000>
  %".303" = bitcast <8 x float> %".283" to <8 x i32>
  %".304" = sub <8 x i32> %".303", <i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504, i32 1262485504>
  %".305" = ashr <8 x i32> %".304", <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %".306" = sub <8 x i32> %".304", %".305"
  %".307" = add <8 x i32> %".305", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".308" = shl <8 x i32> %".307", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".309" = bitcast <8 x i32> %".308" to <8 x float>
  %".310" = add <8 x i32> %".306", <i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127, i32 127>
  %".311" = shl <8 x i32> %".310", <i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23, i32 23>
  %".312" = bitcast <8 x i32> %".311" to <8 x float>
  %".313" = fmul contract <8 x float> %".302", %".309"
  %".314" = fmul contract <8 x float> %".313", %".312"
  %".315" = getelementptr inbounds float, ptr %".6", i64 %".268"
  store <8 x float> %".314", ptr %".315", align 4
  %"softmax_exp_i0.next" = add nsw i64 %"softmax_exp_i0", 1
  br label %"softmax_exp_i0.header"
softmax_expsum_rf_i0.header:
  %"softmax_expsum_rf_i0" = phi  i64 [0, %"softmax_exp_i0.exit"], [%"softmax_expsum_rf_i0.next", %"softmax_expsum_rf_k_o.exit"]
  %".319" = icmp slt i64 %"softmax_expsum_rf_i0", 4
  br i1 %".319", label %"softmax_expsum_rf_i0.body", label %"softmax_expsum_rf_i0.exit"
softmax_expsum_rf_i0.body:
  %".321" = mul i64 %"softmax_expsum_rf_i0", 16
  %".322" = getelementptr inbounds float, ptr %".7", i64 %".321"
  store <16 x float> <float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".322", align 4
  br label %"softmax_expsum_rf_k_o.header"
softmax_expsum_rf_i0.exit:
  %".352" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".352", align 4
  %".354" = mul i64 0, 16
  %".355" = add i64 %".354", 0
  %".356" = getelementptr inbounds float, ptr %".7", i64 %".355"
  %".357" = load <16 x float>, ptr %".356", align 4
  %".358" = mul i64 1, 16
  %".359" = add i64 %".358", 0
  %".360" = getelementptr inbounds float, ptr %".7", i64 %".359"
  %".361" = load <16 x float>, ptr %".360", align 4
  %".362" = mul i64 2, 16
  %".363" = add i64 %".362", 0
  %".364" = getelementptr inbounds float, ptr %".7", i64 %".363"
  %".365" = load <16 x float>, ptr %".364", align 4
  %".366" = mul i64 3, 16
  %".367" = add i64 %".366", 0
  %".368" = getelementptr inbounds float, ptr %".7", i64 %".367"
  %".369" = load <16 x float>, ptr %".368", align 4
  %".370" = shufflevector <16 x float> %".357", <16 x float> %".361", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".371" = shufflevector <16 x float> %".357", <16 x float> %".361", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".372" = shufflevector <16 x float> %".365", <16 x float> %".369", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 16, i32 17, i32 18, i32 19, i32 8, i32 9, i32 10, i32 11, i32 24, i32 25, i32 26, i32 27>
  %".373" = shufflevector <16 x float> %".365", <16 x float> %".369", <16 x i32> <i32 4, i32 5, i32 6, i32 7, i32 20, i32 21, i32 22, i32 23, i32 12, i32 13, i32 14, i32 15, i32 28, i32 29, i32 30, i32 31>
  %".374" = shufflevector <16 x float> %".370", <16 x float> %".372", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".375" = shufflevector <16 x float> %".370", <16 x float> %".372", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".376" = shufflevector <16 x float> %".371", <16 x float> %".373", <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23>
  %".377" = shufflevector <16 x float> %".371", <16 x float> %".373", <16 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %".378" = shufflevector <16 x float> %".374", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".379" = shufflevector <16 x float> %".374", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".380" = shufflevector <16 x float> %".374", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".381" = shufflevector <16 x float> %".374", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".382" = shufflevector <16 x float> %".376", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".383" = shufflevector <16 x float> %".376", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".384" = shufflevector <16 x float> %".376", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".385" = shufflevector <16 x float> %".376", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".386" = shufflevector <16 x float> %".375", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".387" = shufflevector <16 x float> %".375", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".388" = shufflevector <16 x float> %".375", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".389" = shufflevector <16 x float> %".375", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".390" = shufflevector <16 x float> %".377", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 4, i32 8, i32 12>
  %".391" = shufflevector <16 x float> %".377", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 5, i32 9, i32 13>
  %".392" = shufflevector <16 x float> %".377", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 6, i32 10, i32 14>
  %".393" = shufflevector <16 x float> %".377", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 7, i32 11, i32 15>
  %".394" = getelementptr inbounds float, ptr %".8", i64 0
  %".395" = load <4 x float>, ptr %".394", align 4
  %".396" = fadd contract <4 x float> %".395", %".378"
  %".397" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".396", ptr %".397", align 4
  %".399" = getelementptr inbounds float, ptr %".8", i64 0
  %".400" = load <4 x float>, ptr %".399", align 4
  %".401" = fadd contract <4 x float> %".400", %".379"
  %".402" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".401", ptr %".402", align 4
  %".404" = getelementptr inbounds float, ptr %".8", i64 0
  %".405" = load <4 x float>, ptr %".404", align 4
  %".406" = fadd contract <4 x float> %".405", %".380"
  %".407" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".406", ptr %".407", align 4
  %".409" = getelementptr inbounds float, ptr %".8", i64 0
  %".410" = load <4 x float>, ptr %".409", align 4
  %".411" = fadd contract <4 x float> %".410", %".381"
  %".412" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".411", ptr %".412", align 4
  %".414" = getelementptr inbounds float, ptr %".8", i64 0
  %".415" = load <4 x float>, ptr %".414", align 4
  %".416" = fadd contract <4 x float> %".415", %".382"
  %".417" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".416", ptr %".417", align 4
  %".419" = getelementptr inbounds float, ptr %".8", i64 0
  %".420" = load <4 x float>, ptr %".419", align 4
  %".421" = fadd contract <4 x float> %".420", %".383"
  %".422" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".421", ptr %".422", align 4
  %".424" = getelementptr inbounds float, ptr %".8", i64 0
  %".425" = load <4 x float>, ptr %".424", align 4
  %".426" = fadd contract <4 x float> %".425", %".384"
  %".427" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".426", ptr %".427", align 4
  %".429" = getelementptr inbounds float, ptr %".8", i64 0
  %".430" = load <4 x float>, ptr %".429", align 4
  %".431" = fadd contract <4 x float> %".430", %".385"
  %".432" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".431", ptr %".432", align 4
  %".434" = getelementptr inbounds float, ptr %".8", i64 0
  %".435" = load <4 x float>, ptr %".434", align 4
  %".436" = fadd contract <4 x float> %".435", %".386"
  %".437" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".436", ptr %".437", align 4
  %".439" = getelementptr inbounds float, ptr %".8", i64 0
  %".440" = load <4 x float>, ptr %".439", align 4
  %".441" = fadd contract <4 x float> %".440", %".387"
  %".442" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".441", ptr %".442", align 4
  %".444" = getelementptr inbounds float, ptr %".8", i64 0
  %".445" = load <4 x float>, ptr %".444", align 4
  %".446" = fadd contract <4 x float> %".445", %".388"
  %".447" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".446", ptr %".447", align 4
  %".449" = getelementptr inbounds float, ptr %".8", i64 0
  %".450" = load <4 x float>, ptr %".449", align 4
  %".451" = fadd contract <4 x float> %".450", %".389"
  %".452" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".451", ptr %".452", align 4
  %".454" = getelementptr inbounds float, ptr %".8", i64 0
  %".455" = load <4 x float>, ptr %".454", align 4
  %".456" = fadd contract <4 x float> %".455", %".390"
  %".457" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".456", ptr %".457", align 4
  %".459" = getelementptr inbounds float, ptr %".8", i64 0
  %".460" = load <4 x float>, ptr %".459", align 4
  %".461" = fadd contract <4 x float> %".460", %".391"
  %".462" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".461", ptr %".462", align 4
  %".464" = getelementptr inbounds float, ptr %".8", i64 0
  %".465" = load <4 x float>, ptr %".464", align 4
  %".466" = fadd contract <4 x float> %".465", %".392"
  %".467" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".466", ptr %".467", align 4
  %".469" = getelementptr inbounds float, ptr %".8", i64 0
  %".470" = load <4 x float>, ptr %".469", align 4
  %".471" = fadd contract <4 x float> %".470", %".393"
  %".472" = getelementptr inbounds float, ptr %".8", i64 0
  store <4 x float> %".471", ptr %".472", align 4
  br label %"softmax_i0.header"
softmax_expsum_rf_k_o.header:
  %"softmax_expsum_rf_k_o" = phi  i64 [0, %"softmax_expsum_rf_i0.body"], [%"softmax_expsum_rf_k_o.next", %"softmax_expsum_rf_k_o.body"]
  %".325" = icmp slt i64 %"softmax_expsum_rf_k_o", 2
  br i1 %".325", label %"softmax_expsum_rf_k_o.body", label %"softmax_expsum_rf_k_o.exit"
softmax_expsum_rf_k_o.body:
  %".327" = mul i64 %"softmax_expsum_rf_i0", 16
  %".328" = mul i64 %"softmax_expsum_rf_i0", 16
  %".329" = getelementptr inbounds float, ptr %".7", i64 %".328"
  %".330" = load <16 x float>, ptr %".329", align 4
  %".331" = mul i64 %"softmax_expsum_rf_i0", 48
  %".332" = mul i64 %"softmax_expsum_rf_k_o", 16
  %".333" = add i64 %".331", %".332"
  %".334" = getelementptr inbounds float, ptr %".6", i64 %".333"
  %".335" = load <16 x float>, ptr %".334", align 4
  %".336" = fadd contract <16 x float> %".330", %".335"
  %".337" = getelementptr inbounds float, ptr %".7", i64 %".327"
  store <16 x float> %".336", ptr %".337", align 4
  %"softmax_expsum_rf_k_o.next" = add nsw i64 %"softmax_expsum_rf_k_o", 1
  br label %"softmax_expsum_rf_k_o.header"
softmax_expsum_rf_k_o.exit:
  %".340" = mul i64 %"softmax_expsum_rf_i0", 16
  %".341" = mul i64 %"softmax_expsum_rf_i0", 16
  %".342" = getelementptr inbounds float, ptr %".7", i64 %".341"
  %".343" = load <8 x float>, ptr %".342", align 4
  %".344" = mul i64 %"softmax_expsum_rf_i0", 48
  %".345" = add i64 %".344", 32
  %".346" = getelementptr inbounds float, ptr %".6", i64 %".345"
  %".347" = load <8 x float>, ptr %".346", align 4
  %".348" = fadd contract <8 x float> %".343", %".347"
  %".349" = getelementptr inbounds float, ptr %".7", i64 %".340"
  store <8 x float> %".348", ptr %".349", align 4
  %"softmax_expsum_rf_i0.next" = add nsw i64 %"softmax_expsum_rf_i0", 1
  br label %"softmax_expsum_rf_i0.header"
softmax_i0.header:
  %"softmax_i0" = phi  i64 [0, %"softmax_expsum_rf_i0.exit"], [%"softmax_i0.next", %"softmax_i1_o.exit"]
  %".475" = icmp slt i64 %"softmax_i0", 4
  br i1 %".475", label %"softmax_i0.body", label %"softmax_i0.exit"
softmax_i0.body:
  br label %"softmax_i1_o.header"
softmax_i0.exit:
  ret void
softmax_i1_o.header:
  %"softmax_i1_o" = phi  i64 [0, %"softmax_i0.body"], [%"softmax_i1_o.next", %"softmax_i1_o.body"]
  %".478" = icmp slt i64 %"softmax_i1_o", 2
  br i1 %".478", label %"softmax_i1_o.body", label %"softmax_i1_o.exit"
softmax_i1_o.body:
  %".480" = mul i64 %"softmax_i0", 40
  %".481" = mul i64 %"softmax_i1_o", 16
  %".482" = add i64 %".480", %".481"
  %".483" = mul i64 %"softmax_i0", 48
  %".484" = mul i64 %"softmax_i1_o", 16
  %".485" = add i64 %".483", %".484"
  %".486" = getelementptr inbounds float, ptr %".6", i64 %".485"
  %".487" = load <16 x float>, ptr %".486", align 4
  %".488" = getelementptr inbounds float, ptr %".8", i64 %"softmax_i0"
  %".489" = load float, ptr %".488", align 4
  %".490" = fdiv float 0x3ff0000000000000, %".489"
  %".491" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".490", i32 0
  %".492" = shufflevector <16 x float> %".491", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".493" = fmul contract <16 x float> %".487", %".492"
  %".494" = getelementptr inbounds float, ptr %"softmax", i64 %".482"
  store <16 x float> %".493", ptr %".494", align 4
  %"softmax_i1_o.next" = add nsw i64 %"softmax_i1_o", 1
  br label %"softmax_i1_o.header"
softmax_i1_o.exit:
  %".497" = mul i64 %"softmax_i0", 40
  %".498" = add i64 %".497", 32
  %".499" = mul i64 %"softmax_i0", 48
  %".500" = add i64 %".499", 32
  %".501" = getelementptr inbounds float, ptr %".6", i64 %".500"
  %".502" = load <8 x float>, ptr %".501", align 4
  %".503" = getelementptr inbounds float, ptr %".8", i64 %"softmax_i0"
  %".504" = load float, ptr %".503", align 4
  %".505" = fdiv float 0x3ff0000000000000, %".504"
  %".506" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".505", i32 0
  %".507" = shufflevector <8 x float> %".506", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".508" = fmul contract <8 x float> %".502", %".507"
  %".509" = getelementptr inbounds float, ptr %"softmax", i64 %".498"
  store <8 x float> %".508", ptr %".509", align 4
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
