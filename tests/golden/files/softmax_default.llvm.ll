define void @"fused_nn_softmax"(ptr noalias nonnull %"p0", ptr noalias nonnull %"softmax") nounwind
{
entry:
  %".4" = alloca [4 x float], align 64
  %".5" = alloca [4 x float], align 64
  br label %"body"
body:
  %".6" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> <float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000, float 0xfff0000000000000>, ptr %".6", align 4
  %".8" = mul i64 0, 40
  %".9" = add i64 %".8", 0
  %".10" = getelementptr inbounds float, ptr %"p0", i64 %".9"
  %".11" = load <40 x float>, ptr %".10", align 4
  %".12" = mul i64 1, 40
  %".13" = add i64 %".12", 0
  %".14" = getelementptr inbounds float, ptr %"p0", i64 %".13"
  %".15" = load <40 x float>, ptr %".14", align 4
  %".16" = mul i64 2, 40
  %".17" = add i64 %".16", 0
  %".18" = getelementptr inbounds float, ptr %"p0", i64 %".17"
  %".19" = load <40 x float>, ptr %".18", align 4
  %".20" = mul i64 3, 40
  %".21" = add i64 %".20", 0
  %".22" = getelementptr inbounds float, ptr %"p0", i64 %".21"
  %".23" = load <40 x float>, ptr %".22", align 4
  %".24" = shufflevector <40 x float> %".11", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".25" = shufflevector <40 x float> %".15", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".26" = shufflevector <40 x float> %".19", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".27" = shufflevector <40 x float> %".23", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".28" = shufflevector <64 x float> %".24", <64 x float> %".25", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111>
  %".29" = shufflevector <64 x float> %".24", <64 x float> %".25", <64 x i32> <i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".30" = shufflevector <64 x float> %".26", <64 x float> %".27", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111>
  %".31" = shufflevector <64 x float> %".26", <64 x float> %".27", <64 x i32> <i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".32" = shufflevector <64 x float> %".28", <64 x float> %".30", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95>
  %".33" = shufflevector <64 x float> %".28", <64 x float> %".30", <64 x i32> <i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".34" = shufflevector <64 x float> %".29", <64 x float> %".31", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95>
  %".35" = shufflevector <64 x float> %".29", <64 x float> %".31", <64 x i32> <i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".36" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 16, i32 32, i32 48>
  %".37" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 17, i32 33, i32 49>
  %".38" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 18, i32 34, i32 50>
  %".39" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 19, i32 35, i32 51>
  %".40" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 4, i32 20, i32 36, i32 52>
  %".41" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 5, i32 21, i32 37, i32 53>
  %".42" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 6, i32 22, i32 38, i32 54>
  %".43" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 7, i32 23, i32 39, i32 55>
  %".44" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 8, i32 24, i32 40, i32 56>
  %".45" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 9, i32 25, i32 41, i32 57>
  %".46" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 10, i32 26, i32 42, i32 58>
  %".47" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 11, i32 27, i32 43, i32 59>
  %".48" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 12, i32 28, i32 44, i32 60>
  %".49" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 13, i32 29, i32 45, i32 61>
  %".50" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 14, i32 30, i32 46, i32 62>
  %".51" = shufflevector <64 x float> %".32", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 15, i32 31, i32 47, i32 63>
  %".52" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 16, i32 32, i32 48>
  %".53" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 17, i32 33, i32 49>
  %".54" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 18, i32 34, i32 50>
  %".55" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 19, i32 35, i32 51>
  %".56" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 4, i32 20, i32 36, i32 52>
  %".57" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 5, i32 21, i32 37, i32 53>
  %".58" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 6, i32 22, i32 38, i32 54>
  %".59" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 7, i32 23, i32 39, i32 55>
  %".60" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 8, i32 24, i32 40, i32 56>
  %".61" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 9, i32 25, i32 41, i32 57>
  %".62" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 10, i32 26, i32 42, i32 58>
  %".63" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 11, i32 27, i32 43, i32 59>
  %".64" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 12, i32 28, i32 44, i32 60>
  %".65" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 13, i32 29, i32 45, i32 61>
  %".66" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 14, i32 30, i32 46, i32 62>
  %".67" = shufflevector <64 x float> %".34", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 15, i32 31, i32 47, i32 63>
  %".68" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 16, i32 32, i32 48>
  %".69" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 17, i32 33, i32 49>
  %".70" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 18, i32 34, i32 50>
  %".71" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 19, i32 35, i32 51>
  %".72" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 4, i32 20, i32 36, i32 52>
  %".73" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 5, i32 21, i32 37, i32 53>
  %".74" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 6, i32 22, i32 38, i32 54>
  %".75" = shufflevector <64 x float> %".33", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 7, i32 23, i32 39, i32 55>
  %".76" = getelementptr inbounds float, ptr %".4", i64 0
  %".77" = load <4 x float>, ptr %".76", align 4
  %".78" = fcmp ogt <4 x float> %".36", %".77"
  %".79" = select  <4 x i1> %".78", <4 x float> %".36", <4 x float> %".77"
  %".80" = fcmp uno <4 x float> %".36", %".36"
  %".81" = select  <4 x i1> %".80", <4 x float> %".36", <4 x float> %".79"
  %".82" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".81", ptr %".82", align 4
  %".84" = getelementptr inbounds float, ptr %".4", i64 0
  %".85" = load <4 x float>, ptr %".84", align 4
  %".86" = fcmp ogt <4 x float> %".37", %".85"
  %".87" = select  <4 x i1> %".86", <4 x float> %".37", <4 x float> %".85"
  %".88" = fcmp uno <4 x float> %".37", %".37"
  %".89" = select  <4 x i1> %".88", <4 x float> %".37", <4 x float> %".87"
  %".90" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".89", ptr %".90", align 4
  %".92" = getelementptr inbounds float, ptr %".4", i64 0
  %".93" = load <4 x float>, ptr %".92", align 4
  %".94" = fcmp ogt <4 x float> %".38", %".93"
  %".95" = select  <4 x i1> %".94", <4 x float> %".38", <4 x float> %".93"
  %".96" = fcmp uno <4 x float> %".38", %".38"
  %".97" = select  <4 x i1> %".96", <4 x float> %".38", <4 x float> %".95"
  %".98" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".97", ptr %".98", align 4
  %".100" = getelementptr inbounds float, ptr %".4", i64 0
  %".101" = load <4 x float>, ptr %".100", align 4
  %".102" = fcmp ogt <4 x float> %".39", %".101"
  %".103" = select  <4 x i1> %".102", <4 x float> %".39", <4 x float> %".101"
  %".104" = fcmp uno <4 x float> %".39", %".39"
  %".105" = select  <4 x i1> %".104", <4 x float> %".39", <4 x float> %".103"
  %".106" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".105", ptr %".106", align 4
  %".108" = getelementptr inbounds float, ptr %".4", i64 0
  %".109" = load <4 x float>, ptr %".108", align 4
  %".110" = fcmp ogt <4 x float> %".40", %".109"
  %".111" = select  <4 x i1> %".110", <4 x float> %".40", <4 x float> %".109"
  %".112" = fcmp uno <4 x float> %".40", %".40"
  %".113" = select  <4 x i1> %".112", <4 x float> %".40", <4 x float> %".111"
  %".114" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".113", ptr %".114", align 4
  %".116" = getelementptr inbounds float, ptr %".4", i64 0
  %".117" = load <4 x float>, ptr %".116", align 4
  %".118" = fcmp ogt <4 x float> %".41", %".117"
  %".119" = select  <4 x i1> %".118", <4 x float> %".41", <4 x float> %".117"
  %".120" = fcmp uno <4 x float> %".41", %".41"
  %".121" = select  <4 x i1> %".120", <4 x float> %".41", <4 x float> %".119"
  %".122" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".121", ptr %".122", align 4
  %".124" = getelementptr inbounds float, ptr %".4", i64 0
  %".125" = load <4 x float>, ptr %".124", align 4
  %".126" = fcmp ogt <4 x float> %".42", %".125"
  %".127" = select  <4 x i1> %".126", <4 x float> %".42", <4 x float> %".125"
  %".128" = fcmp uno <4 x float> %".42", %".42"
  %".129" = select  <4 x i1> %".128", <4 x float> %".42", <4 x float> %".127"
  %".130" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".129", ptr %".130", align 4
  %".132" = getelementptr inbounds float, ptr %".4", i64 0
  %".133" = load <4 x float>, ptr %".132", align 4
  %".134" = fcmp ogt <4 x float> %".43", %".133"
  %".135" = select  <4 x i1> %".134", <4 x float> %".43", <4 x float> %".133"
  %".136" = fcmp uno <4 x float> %".43", %".43"
  %".137" = select  <4 x i1> %".136", <4 x float> %".43", <4 x float> %".135"
  %".138" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".137", ptr %".138", align 4
  %".140" = getelementptr inbounds float, ptr %".4", i64 0
  %".141" = load <4 x float>, ptr %".140", align 4
  %".142" = fcmp ogt <4 x float> %".44", %".141"
  %".143" = select  <4 x i1> %".142", <4 x float> %".44", <4 x float> %".141"
  %".144" = fcmp uno <4 x float> %".44", %".44"
  %".145" = select  <4 x i1> %".144", <4 x float> %".44", <4 x float> %".143"
  %".146" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".145", ptr %".146", align 4
  %".148" = getelementptr inbounds float, ptr %".4", i64 0
  %".149" = load <4 x float>, ptr %".148", align 4
  %".150" = fcmp ogt <4 x float> %".45", %".149"
  %".151" = select  <4 x i1> %".150", <4 x float> %".45", <4 x float> %".149"
  %".152" = fcmp uno <4 x float> %".45", %".45"
  %".153" = select  <4 x i1> %".152", <4 x float> %".45", <4 x float> %".151"
  %".154" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".153", ptr %".154", align 4
  %".156" = getelementptr inbounds float, ptr %".4", i64 0
  %".157" = load <4 x float>, ptr %".156", align 4
  %".158" = fcmp ogt <4 x float> %".46", %".157"
  %".159" = select  <4 x i1> %".158", <4 x float> %".46", <4 x float> %".157"
  %".160" = fcmp uno <4 x float> %".46", %".46"
  %".161" = select  <4 x i1> %".160", <4 x float> %".46", <4 x float> %".159"
  %".162" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".161", ptr %".162", align 4
  %".164" = getelementptr inbounds float, ptr %".4", i64 0
  %".165" = load <4 x float>, ptr %".164", align 4
  %".166" = fcmp ogt <4 x float> %".47", %".165"
  %".167" = select  <4 x i1> %".166", <4 x float> %".47", <4 x float> %".165"
  %".168" = fcmp uno <4 x float> %".47", %".47"
  %".169" = select  <4 x i1> %".168", <4 x float> %".47", <4 x float> %".167"
  %".170" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".169", ptr %".170", align 4
  %".172" = getelementptr inbounds float, ptr %".4", i64 0
  %".173" = load <4 x float>, ptr %".172", align 4
  %".174" = fcmp ogt <4 x float> %".48", %".173"
  %".175" = select  <4 x i1> %".174", <4 x float> %".48", <4 x float> %".173"
  %".176" = fcmp uno <4 x float> %".48", %".48"
  %".177" = select  <4 x i1> %".176", <4 x float> %".48", <4 x float> %".175"
  %".178" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".177", ptr %".178", align 4
  %".180" = getelementptr inbounds float, ptr %".4", i64 0
  %".181" = load <4 x float>, ptr %".180", align 4
  %".182" = fcmp ogt <4 x float> %".49", %".181"
  %".183" = select  <4 x i1> %".182", <4 x float> %".49", <4 x float> %".181"
  %".184" = fcmp uno <4 x float> %".49", %".49"
  %".185" = select  <4 x i1> %".184", <4 x float> %".49", <4 x float> %".183"
  %".186" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".185", ptr %".186", align 4
  %".188" = getelementptr inbounds float, ptr %".4", i64 0
  %".189" = load <4 x float>, ptr %".188", align 4
  %".190" = fcmp ogt <4 x float> %".50", %".189"
  %".191" = select  <4 x i1> %".190", <4 x float> %".50", <4 x float> %".189"
  %".192" = fcmp uno <4 x float> %".50", %".50"
  %".193" = select  <4 x i1> %".192", <4 x float> %".50", <4 x float> %".191"
  %".194" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".193", ptr %".194", align 4
  %".196" = getelementptr inbounds float, ptr %".4", i64 0
  %".197" = load <4 x float>, ptr %".196", align 4
  %".198" = fcmp ogt <4 x float> %".51", %".197"
  %".199" = select  <4 x i1> %".198", <4 x float> %".51", <4 x float> %".197"
  %".200" = fcmp uno <4 x float> %".51", %".51"
  %".201" = select  <4 x i1> %".200", <4 x float> %".51", <4 x float> %".199"
  %".202" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".201", ptr %".202", align 4
  %".204" = getelementptr inbounds float, ptr %".4", i64 0
  %".205" = load <4 x float>, ptr %".204", align 4
  %".206" = fcmp ogt <4 x float> %".52", %".205"
  %".207" = select  <4 x i1> %".206", <4 x float> %".52", <4 x float> %".205"
  %".208" = fcmp uno <4 x float> %".52", %".52"
  %".209" = select  <4 x i1> %".208", <4 x float> %".52", <4 x float> %".207"
  %".210" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".209", ptr %".210", align 4
  %".212" = getelementptr inbounds float, ptr %".4", i64 0
  %".213" = load <4 x float>, ptr %".212", align 4
  %".214" = fcmp ogt <4 x float> %".53", %".213"
  %".215" = select  <4 x i1> %".214", <4 x float> %".53", <4 x float> %".213"
  %".216" = fcmp uno <4 x float> %".53", %".53"
  %".217" = select  <4 x i1> %".216", <4 x float> %".53", <4 x float> %".215"
  %".218" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".217", ptr %".218", align 4
  %".220" = getelementptr inbounds float, ptr %".4", i64 0
  %".221" = load <4 x float>, ptr %".220", align 4
  %".222" = fcmp ogt <4 x float> %".54", %".221"
  %".223" = select  <4 x i1> %".222", <4 x float> %".54", <4 x float> %".221"
  %".224" = fcmp uno <4 x float> %".54", %".54"
  %".225" = select  <4 x i1> %".224", <4 x float> %".54", <4 x float> %".223"
  %".226" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".225", ptr %".226", align 4
  %".228" = getelementptr inbounds float, ptr %".4", i64 0
  %".229" = load <4 x float>, ptr %".228", align 4
  %".230" = fcmp ogt <4 x float> %".55", %".229"
  %".231" = select  <4 x i1> %".230", <4 x float> %".55", <4 x float> %".229"
  %".232" = fcmp uno <4 x float> %".55", %".55"
  %".233" = select  <4 x i1> %".232", <4 x float> %".55", <4 x float> %".231"
  %".234" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".233", ptr %".234", align 4
  %".236" = getelementptr inbounds float, ptr %".4", i64 0
  %".237" = load <4 x float>, ptr %".236", align 4
  %".238" = fcmp ogt <4 x float> %".56", %".237"
  %".239" = select  <4 x i1> %".238", <4 x float> %".56", <4 x float> %".237"
  %".240" = fcmp uno <4 x float> %".56", %".56"
  %".241" = select  <4 x i1> %".240", <4 x float> %".56", <4 x float> %".239"
  %".242" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".241", ptr %".242", align 4
  %".244" = getelementptr inbounds float, ptr %".4", i64 0
  %".245" = load <4 x float>, ptr %".244", align 4
  %".246" = fcmp ogt <4 x float> %".57", %".245"
  %".247" = select  <4 x i1> %".246", <4 x float> %".57", <4 x float> %".245"
  %".248" = fcmp uno <4 x float> %".57", %".57"
  %".249" = select  <4 x i1> %".248", <4 x float> %".57", <4 x float> %".247"
  %".250" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".249", ptr %".250", align 4
  %".252" = getelementptr inbounds float, ptr %".4", i64 0
  %".253" = load <4 x float>, ptr %".252", align 4
  %".254" = fcmp ogt <4 x float> %".58", %".253"
  %".255" = select  <4 x i1> %".254", <4 x float> %".58", <4 x float> %".253"
  %".256" = fcmp uno <4 x float> %".58", %".58"
  %".257" = select  <4 x i1> %".256", <4 x float> %".58", <4 x float> %".255"
  %".258" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".257", ptr %".258", align 4
  %".260" = getelementptr inbounds float, ptr %".4", i64 0
  %".261" = load <4 x float>, ptr %".260", align 4
  %".262" = fcmp ogt <4 x float> %".59", %".261"
  %".263" = select  <4 x i1> %".262", <4 x float> %".59", <4 x float> %".261"
  %".264" = fcmp uno <4 x float> %".59", %".59"
  %".265" = select  <4 x i1> %".264", <4 x float> %".59", <4 x float> %".263"
  %".266" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".265", ptr %".266", align 4
  %".268" = getelementptr inbounds float, ptr %".4", i64 0
  %".269" = load <4 x float>, ptr %".268", align 4
  %".270" = fcmp ogt <4 x float> %".60", %".269"
  %".271" = select  <4 x i1> %".270", <4 x float> %".60", <4 x float> %".269"
  %".272" = fcmp uno <4 x float> %".60", %".60"
  %".273" = select  <4 x i1> %".272", <4 x float> %".60", <4 x float> %".271"
  %".274" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".273", ptr %".274", align 4
  %".276" = getelementptr inbounds float, ptr %".4", i64 0
  %".277" = load <4 x float>, ptr %".276", align 4
  %".278" = fcmp ogt <4 x float> %".61", %".277"
  %".279" = select  <4 x i1> %".278", <4 x float> %".61", <4 x float> %".277"
  %".280" = fcmp uno <4 x float> %".61", %".61"
  %".281" = select  <4 x i1> %".280", <4 x float> %".61", <4 x float> %".279"
  %".282" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".281", ptr %".282", align 4
  %".284" = getelementptr inbounds float, ptr %".4", i64 0
  %".285" = load <4 x float>, ptr %".284", align 4
  %".286" = fcmp ogt <4 x float> %".62", %".285"
  %".287" = select  <4 x i1> %".286", <4 x float> %".62", <4 x float> %".285"
  %".288" = fcmp uno <4 x float> %".62", %".62"
  %".289" = select  <4 x i1> %".288", <4 x float> %".62", <4 x float> %".287"
  %".290" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".289", ptr %".290", align 4
  %".292" = getelementptr inbounds float, ptr %".4", i64 0
  %".293" = load <4 x float>, ptr %".292", align 4
  %".294" = fcmp ogt <4 x float> %".63", %".293"
  %".295" = select  <4 x i1> %".294", <4 x float> %".63", <4 x float> %".293"
  %".296" = fcmp uno <4 x float> %".63", %".63"
  %".297" = select  <4 x i1> %".296", <4 x float> %".63", <4 x float> %".295"
  %".298" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".297", ptr %".298", align 4
  %".300" = getelementptr inbounds float, ptr %".4", i64 0
  %".301" = load <4 x float>, ptr %".300", align 4
  %".302" = fcmp ogt <4 x float> %".64", %".301"
  %".303" = select  <4 x i1> %".302", <4 x float> %".64", <4 x float> %".301"
  %".304" = fcmp uno <4 x float> %".64", %".64"
  %".305" = select  <4 x i1> %".304", <4 x float> %".64", <4 x float> %".303"
  %".306" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".305", ptr %".306", align 4
  %".308" = getelementptr inbounds float, ptr %".4", i64 0
  %".309" = load <4 x float>, ptr %".308", align 4
  %".310" = fcmp ogt <4 x float> %".65", %".309"
  %".311" = select  <4 x i1> %".310", <4 x float> %".65", <4 x float> %".309"
  %".312" = fcmp uno <4 x float> %".65", %".65"
  %".313" = select  <4 x i1> %".312", <4 x float> %".65", <4 x float> %".311"
  %".314" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".313", ptr %".314", align 4
  %".316" = getelementptr inbounds float, ptr %".4", i64 0
  %".317" = load <4 x float>, ptr %".316", align 4
  %".318" = fcmp ogt <4 x float> %".66", %".317"
  %".319" = select  <4 x i1> %".318", <4 x float> %".66", <4 x float> %".317"
  %".320" = fcmp uno <4 x float> %".66", %".66"
  %".321" = select  <4 x i1> %".320", <4 x float> %".66", <4 x float> %".319"
  %".322" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".321", ptr %".322", align 4
  %".324" = getelementptr inbounds float, ptr %".4", i64 0
  %".325" = load <4 x float>, ptr %".324", align 4
  %".326" = fcmp ogt <4 x float> %".67", %".325"
  %".327" = select  <4 x i1> %".326", <4 x float> %".67", <4 x float> %".325"
  %".328" = fcmp uno <4 x float> %".67", %".67"
  %".329" = select  <4 x i1> %".328", <4 x float> %".67", <4 x float> %".327"
  %".330" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".329", ptr %".330", align 4
  %".332" = getelementptr inbounds float, ptr %".4", i64 0
  %".333" = load <4 x float>, ptr %".332", align 4
  %".334" = fcmp ogt <4 x float> %".68", %".333"
  %".335" = select  <4 x i1> %".334", <4 x float> %".68", <4 x float> %".333"
  %".336" = fcmp uno <4 x float> %".68", %".68"
  %".337" = select  <4 x i1> %".336", <4 x float> %".68", <4 x float> %".335"
  %".338" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".337", ptr %".338", align 4
  %".340" = getelementptr inbounds float, ptr %".4", i64 0
  %".341" = load <4 x float>, ptr %".340", align 4
  %".342" = fcmp ogt <4 x float> %".69", %".341"
  %".343" = select  <4 x i1> %".342", <4 x float> %".69", <4 x float> %".341"
  %".344" = fcmp uno <4 x float> %".69", %".69"
  %".345" = select  <4 x i1> %".344", <4 x float> %".69", <4 x float> %".343"
  %".346" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".345", ptr %".346", align 4
  %".348" = getelementptr inbounds float, ptr %".4", i64 0
  %".349" = load <4 x float>, ptr %".348", align 4
  %".350" = fcmp ogt <4 x float> %".70", %".349"
  %".351" = select  <4 x i1> %".350", <4 x float> %".70", <4 x float> %".349"
  %".352" = fcmp uno <4 x float> %".70", %".70"
  %".353" = select  <4 x i1> %".352", <4 x float> %".70", <4 x float> %".351"
  %".354" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".353", ptr %".354", align 4
  %".356" = getelementptr inbounds float, ptr %".4", i64 0
  %".357" = load <4 x float>, ptr %".356", align 4
  %".358" = fcmp ogt <4 x float> %".71", %".357"
  %".359" = select  <4 x i1> %".358", <4 x float> %".71", <4 x float> %".357"
  %".360" = fcmp uno <4 x float> %".71", %".71"
  %".361" = select  <4 x i1> %".360", <4 x float> %".71", <4 x float> %".359"
  %".362" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".361", ptr %".362", align 4
  %".364" = getelementptr inbounds float, ptr %".4", i64 0
  %".365" = load <4 x float>, ptr %".364", align 4
  %".366" = fcmp ogt <4 x float> %".72", %".365"
  %".367" = select  <4 x i1> %".366", <4 x float> %".72", <4 x float> %".365"
  %".368" = fcmp uno <4 x float> %".72", %".72"
  %".369" = select  <4 x i1> %".368", <4 x float> %".72", <4 x float> %".367"
  %".370" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".369", ptr %".370", align 4
  %".372" = getelementptr inbounds float, ptr %".4", i64 0
  %".373" = load <4 x float>, ptr %".372", align 4
  %".374" = fcmp ogt <4 x float> %".73", %".373"
  %".375" = select  <4 x i1> %".374", <4 x float> %".73", <4 x float> %".373"
  %".376" = fcmp uno <4 x float> %".73", %".73"
  %".377" = select  <4 x i1> %".376", <4 x float> %".73", <4 x float> %".375"
  %".378" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".377", ptr %".378", align 4
  %".380" = getelementptr inbounds float, ptr %".4", i64 0
  %".381" = load <4 x float>, ptr %".380", align 4
  %".382" = fcmp ogt <4 x float> %".74", %".381"
  %".383" = select  <4 x i1> %".382", <4 x float> %".74", <4 x float> %".381"
  %".384" = fcmp uno <4 x float> %".74", %".74"
  %".385" = select  <4 x i1> %".384", <4 x float> %".74", <4 x float> %".383"
  %".386" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".385", ptr %".386", align 4
  %".388" = getelementptr inbounds float, ptr %".4", i64 0
  %".389" = load <4 x float>, ptr %".388", align 4
  %".390" = fcmp ogt <4 x float> %".75", %".389"
  %".391" = select  <4 x i1> %".390", <4 x float> %".75", <4 x float> %".389"
  %".392" = fcmp uno <4 x float> %".75", %".75"
  %".393" = select  <4 x i1> %".392", <4 x float> %".75", <4 x float> %".391"
  %".394" = getelementptr inbounds float, ptr %".4", i64 0
  store <4 x float> %".393", ptr %".394", align 4
  %".396" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> <float              0x0, float              0x0, float              0x0, float              0x0>, ptr %".396", align 4
  %".398" = mul i64 0, 40
  %".399" = add i64 %".398", 0
  %".400" = getelementptr inbounds float, ptr %"p0", i64 %".399"
  %".401" = load <40 x float>, ptr %".400", align 4
  %".402" = mul i64 1, 40
  %".403" = add i64 %".402", 0
  %".404" = getelementptr inbounds float, ptr %"p0", i64 %".403"
  %".405" = load <40 x float>, ptr %".404", align 4
  %".406" = mul i64 2, 40
  %".407" = add i64 %".406", 0
  %".408" = getelementptr inbounds float, ptr %"p0", i64 %".407"
  %".409" = load <40 x float>, ptr %".408", align 4
  %".410" = mul i64 3, 40
  %".411" = add i64 %".410", 0
  %".412" = getelementptr inbounds float, ptr %"p0", i64 %".411"
  %".413" = load <40 x float>, ptr %".412", align 4
  %".414" = shufflevector <40 x float> %".401", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".415" = shufflevector <40 x float> %".405", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".416" = shufflevector <40 x float> %".409", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".417" = shufflevector <40 x float> %".413", <40 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40, i32 40>
  %".418" = shufflevector <64 x float> %".414", <64 x float> %".415", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111>
  %".419" = shufflevector <64 x float> %".414", <64 x float> %".415", <64 x i32> <i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".420" = shufflevector <64 x float> %".416", <64 x float> %".417", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111>
  %".421" = shufflevector <64 x float> %".416", <64 x float> %".417", <64 x i32> <i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".422" = shufflevector <64 x float> %".418", <64 x float> %".420", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95>
  %".423" = shufflevector <64 x float> %".418", <64 x float> %".420", <64 x i32> <i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".424" = shufflevector <64 x float> %".419", <64 x float> %".421", <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 64, i32 65, i32 66, i32 67, i32 68, i32 69, i32 70, i32 71, i32 72, i32 73, i32 74, i32 75, i32 76, i32 77, i32 78, i32 79, i32 80, i32 81, i32 82, i32 83, i32 84, i32 85, i32 86, i32 87, i32 88, i32 89, i32 90, i32 91, i32 92, i32 93, i32 94, i32 95>
  %".425" = shufflevector <64 x float> %".419", <64 x float> %".421", <64 x i32> <i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63, i32 96, i32 97, i32 98, i32 99, i32 100, i32 101, i32 102, i32 103, i32 104, i32 105, i32 106, i32 107, i32 108, i32 109, i32 110, i32 111, i32 112, i32 113, i32 114, i32 115, i32 116, i32 117, i32 118, i32 119, i32 120, i32 121, i32 122, i32 123, i32 124, i32 125, i32 126, i32 127>
  %".426" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 16, i32 32, i32 48>
  %".427" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 17, i32 33, i32 49>
  %".428" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 18, i32 34, i32 50>
  %".429" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 19, i32 35, i32 51>
  %".430" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 4, i32 20, i32 36, i32 52>
  %".431" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 5, i32 21, i32 37, i32 53>
  %".432" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 6, i32 22, i32 38, i32 54>
  %".433" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 7, i32 23, i32 39, i32 55>
  %".434" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 8, i32 24, i32 40, i32 56>
  %".435" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 9, i32 25, i32 41, i32 57>
  %".436" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 10, i32 26, i32 42, i32 58>
  %".437" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 11, i32 27, i32 43, i32 59>
  %".438" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 12, i32 28, i32 44, i32 60>
  %".439" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 13, i32 29, i32 45, i32 61>
  %".440" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 14, i32 30, i32 46, i32 62>
  %".441" = shufflevector <64 x float> %".422", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 15, i32 31, i32 47, i32 63>
  %".442" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 16, i32 32, i32 48>
  %".443" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 17, i32 33, i32 49>
  %".444" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 18, i32 34, i32 50>
  %".445" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 19, i32 35, i32 51>
  %".446" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 4, i32 20, i32 36, i32 52>
  %".447" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 5, i32 21, i32 37, i32 53>
  %".448" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 6, i32 22, i32 38, i32 54>
  %".449" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 7, i32 23, i32 39, i32 55>
  %".450" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 8, i32 24, i32 40, i32 56>
  %".451" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 9, i32 25, i32 41, i32 57>
  %".452" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 10, i32 26, i32 42, i32 58>
  %".453" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 11, i32 27, i32 43, i32 59>
  %".454" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 12, i32 28, i32 44, i32 60>
  %".455" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 13, i32 29, i32 45, i32 61>
  %".456" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 14, i32 30, i32 46, i32 62>
  %".457" = shufflevector <64 x float> %".424", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 15, i32 31, i32 47, i32 63>
  %".458" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 0, i32 16, i32 32, i32 48>
  %".459" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 1, i32 17, i32 33, i32 49>
  %".460" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 2, i32 18, i32 34, i32 50>
  %".461" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 3, i32 19, i32 35, i32 51>
  %".462" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 4, i32 20, i32 36, i32 52>
  %".463" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 5, i32 21, i32 37, i32 53>
  %".464" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 6, i32 22, i32 38, i32 54>
  %".465" = shufflevector <64 x float> %".423", <64 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <4 x i32> <i32 7, i32 23, i32 39, i32 55>
  %".466" = getelementptr inbounds float, ptr %".5", i64 0
  %".467" = load <4 x float>, ptr %".466", align 4
  %".468" = getelementptr inbounds float, ptr %".4", i64 0
  %".469" = load <4 x float>, ptr %".468", align 4
  %".470" = fsub contract <4 x float> %".426", %".469"
  %".471" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".470")
  %".472" = fadd contract <4 x float> %".467", %".471"
  %".473" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".472", ptr %".473", align 4
  %".475" = getelementptr inbounds float, ptr %".5", i64 0
  %".476" = load <4 x float>, ptr %".475", align 4
  %".477" = getelementptr inbounds float, ptr %".4", i64 0
  %".478" = load <4 x float>, ptr %".477", align 4
  %".479" = fsub contract <4 x float> %".427", %".478"
  %".480" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".479")
  %".481" = fadd contract <4 x float> %".476", %".480"
  %".482" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".481", ptr %".482", align 4
  %".484" = getelementptr inbounds float, ptr %".5", i64 0
  %".485" = load <4 x float>, ptr %".484", align 4
  %".486" = getelementptr inbounds float, ptr %".4", i64 0
  %".487" = load <4 x float>, ptr %".486", align 4
  %".488" = fsub contract <4 x float> %".428", %".487"
  %".489" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".488")
  %".490" = fadd contract <4 x float> %".485", %".489"
  %".491" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".490", ptr %".491", align 4
  %".493" = getelementptr inbounds float, ptr %".5", i64 0
  %".494" = load <4 x float>, ptr %".493", align 4
  %".495" = getelementptr inbounds float, ptr %".4", i64 0
  %".496" = load <4 x float>, ptr %".495", align 4
  %".497" = fsub contract <4 x float> %".429", %".496"
  %".498" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".497")
  %".499" = fadd contract <4 x float> %".494", %".498"
  %".500" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".499", ptr %".500", align 4
  %".502" = getelementptr inbounds float, ptr %".5", i64 0
  %".503" = load <4 x float>, ptr %".502", align 4
  %".504" = getelementptr inbounds float, ptr %".4", i64 0
  %".505" = load <4 x float>, ptr %".504", align 4
  %".506" = fsub contract <4 x float> %".430", %".505"
  %".507" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".506")
  %".508" = fadd contract <4 x float> %".503", %".507"
  %".509" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".508", ptr %".509", align 4
  %".511" = getelementptr inbounds float, ptr %".5", i64 0
  %".512" = load <4 x float>, ptr %".511", align 4
  %".513" = getelementptr inbounds float, ptr %".4", i64 0
  %".514" = load <4 x float>, ptr %".513", align 4
  %".515" = fsub contract <4 x float> %".431", %".514"
  %".516" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".515")
  %".517" = fadd contract <4 x float> %".512", %".516"
  %".518" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".517", ptr %".518", align 4
  %".520" = getelementptr inbounds float, ptr %".5", i64 0
  %".521" = load <4 x float>, ptr %".520", align 4
  %".522" = getelementptr inbounds float, ptr %".4", i64 0
  %".523" = load <4 x float>, ptr %".522", align 4
  %".524" = fsub contract <4 x float> %".432", %".523"
  %".525" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".524")
  %".526" = fadd contract <4 x float> %".521", %".525"
  %".527" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".526", ptr %".527", align 4
  %".529" = getelementptr inbounds float, ptr %".5", i64 0
  %".530" = load <4 x float>, ptr %".529", align 4
  %".531" = getelementptr inbounds float, ptr %".4", i64 0
  %".532" = load <4 x float>, ptr %".531", align 4
  %".533" = fsub contract <4 x float> %".433", %".532"
  %".534" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".533")
  %".535" = fadd contract <4 x float> %".530", %".534"
  %".536" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".535", ptr %".536", align 4
  %".538" = getelementptr inbounds float, ptr %".5", i64 0
  %".539" = load <4 x float>, ptr %".538", align 4
  %".540" = getelementptr inbounds float, ptr %".4", i64 0
  %".541" = load <4 x float>, ptr %".540", align 4
  %".542" = fsub contract <4 x float> %".434", %".541"
  %".543" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".542")
  %".544" = fadd contract <4 x float> %".539", %".543"
  %".545" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".544", ptr %".545", align 4
  %".547" = getelementptr inbounds float, ptr %".5", i64 0
  %".548" = load <4 x float>, ptr %".547", align 4
  %".549" = getelementptr inbounds float, ptr %".4", i64 0
  %".550" = load <4 x float>, ptr %".549", align 4
  %".551" = fsub contract <4 x float> %".435", %".550"
  %".552" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".551")
  %".553" = fadd contract <4 x float> %".548", %".552"
  %".554" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".553", ptr %".554", align 4
  %".556" = getelementptr inbounds float, ptr %".5", i64 0
  %".557" = load <4 x float>, ptr %".556", align 4
  %".558" = getelementptr inbounds float, ptr %".4", i64 0
  %".559" = load <4 x float>, ptr %".558", align 4
  %".560" = fsub contract <4 x float> %".436", %".559"
  %".561" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".560")
  %".562" = fadd contract <4 x float> %".557", %".561"
  %".563" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".562", ptr %".563", align 4
  %".565" = getelementptr inbounds float, ptr %".5", i64 0
  %".566" = load <4 x float>, ptr %".565", align 4
  %".567" = getelementptr inbounds float, ptr %".4", i64 0
  %".568" = load <4 x float>, ptr %".567", align 4
  %".569" = fsub contract <4 x float> %".437", %".568"
  %".570" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".569")
  %".571" = fadd contract <4 x float> %".566", %".570"
  %".572" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".571", ptr %".572", align 4
  %".574" = getelementptr inbounds float, ptr %".5", i64 0
  %".575" = load <4 x float>, ptr %".574", align 4
  %".576" = getelementptr inbounds float, ptr %".4", i64 0
  %".577" = load <4 x float>, ptr %".576", align 4
  %".578" = fsub contract <4 x float> %".438", %".577"
  %".579" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".578")
  %".580" = fadd contract <4 x float> %".575", %".579"
  %".581" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".580", ptr %".581", align 4
  %".583" = getelementptr inbounds float, ptr %".5", i64 0
  %".584" = load <4 x float>, ptr %".583", align 4
  %".585" = getelementptr inbounds float, ptr %".4", i64 0
  %".586" = load <4 x float>, ptr %".585", align 4
  %".587" = fsub contract <4 x float> %".439", %".586"
  %".588" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".587")
  %".589" = fadd contract <4 x float> %".584", %".588"
  %".590" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".589", ptr %".590", align 4
  %".592" = getelementptr inbounds float, ptr %".5", i64 0
  %".593" = load <4 x float>, ptr %".592", align 4
  %".594" = getelementptr inbounds float, ptr %".4", i64 0
  %".595" = load <4 x float>, ptr %".594", align 4
  %".596" = fsub contract <4 x float> %".440", %".595"
  %".597" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".596")
  %".598" = fadd contract <4 x float> %".593", %".597"
  %".599" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".598", ptr %".599", align 4
  %".601" = getelementptr inbounds float, ptr %".5", i64 0
  %".602" = load <4 x float>, ptr %".601", align 4
  %".603" = getelementptr inbounds float, ptr %".4", i64 0
  %".604" = load <4 x float>, ptr %".603", align 4
  %".605" = fsub contract <4 x float> %".441", %".604"
  %".606" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".605")
  %".607" = fadd contract <4 x float> %".602", %".606"
  %".608" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".607", ptr %".608", align 4
  %".610" = getelementptr inbounds float, ptr %".5", i64 0
  %".611" = load <4 x float>, ptr %".610", align 4
  %".612" = getelementptr inbounds float, ptr %".4", i64 0
  %".613" = load <4 x float>, ptr %".612", align 4
  %".614" = fsub contract <4 x float> %".442", %".613"
  %".615" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".614")
  %".616" = fadd contract <4 x float> %".611", %".615"
  %".617" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".616", ptr %".617", align 4
  %".619" = getelementptr inbounds float, ptr %".5", i64 0
  %".620" = load <4 x float>, ptr %".619", align 4
  %".621" = getelementptr inbounds float, ptr %".4", i64 0
  %".622" = load <4 x float>, ptr %".621", align 4
  %".623" = fsub contract <4 x float> %".443", %".622"
  %".624" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".623")
  %".625" = fadd contract <4 x float> %".620", %".624"
  %".626" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".625", ptr %".626", align 4
  %".628" = getelementptr inbounds float, ptr %".5", i64 0
  %".629" = load <4 x float>, ptr %".628", align 4
  %".630" = getelementptr inbounds float, ptr %".4", i64 0
  %".631" = load <4 x float>, ptr %".630", align 4
  %".632" = fsub contract <4 x float> %".444", %".631"
  %".633" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".632")
  %".634" = fadd contract <4 x float> %".629", %".633"
  %".635" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".634", ptr %".635", align 4
  %".637" = getelementptr inbounds float, ptr %".5", i64 0
  %".638" = load <4 x float>, ptr %".637", align 4
  %".639" = getelementptr inbounds float, ptr %".4", i64 0
  %".640" = load <4 x float>, ptr %".639", align 4
  %".641" = fsub contract <4 x float> %".445", %".640"
  %".642" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".641")
  %".643" = fadd contract <4 x float> %".638", %".642"
  %".644" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".643", ptr %".644", align 4
  %".646" = getelementptr inbounds float, ptr %".5", i64 0
  %".647" = load <4 x float>, ptr %".646", align 4
  %".648" = getelementptr inbounds float, ptr %".4", i64 0
  %".649" = load <4 x float>, ptr %".648", align 4
  %".650" = fsub contract <4 x float> %".446", %".649"
  %".651" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".650")
  %".652" = fadd contract <4 x float> %".647", %".651"
  %".653" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".652", ptr %".653", align 4
  %".655" = getelementptr inbounds float, ptr %".5", i64 0
  %".656" = load <4 x float>, ptr %".655", align 4
  %".657" = getelementptr inbounds float, ptr %".4", i64 0
  %".658" = load <4 x float>, ptr %".657", align 4
  %".659" = fsub contract <4 x float> %".447", %".658"
  %".660" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".659")
  %".661" = fadd contract <4 x float> %".656", %".660"
  %".662" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".661", ptr %".662", align 4
  %".664" = getelementptr inbounds float, ptr %".5", i64 0
  %".665" = load <4 x float>, ptr %".664", align 4
  %".666" = getelementptr inbounds float, ptr %".4", i64 0
  %".667" = load <4 x float>, ptr %".666", align 4
  %".668" = fsub contract <4 x float> %".448", %".667"
  %".669" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".668")
  %".670" = fadd contract <4 x float> %".665", %".669"
  %".671" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".670", ptr %".671", align 4
  %".673" = getelementptr inbounds float, ptr %".5", i64 0
  %".674" = load <4 x float>, ptr %".673", align 4
  %".675" = getelementptr inbounds float, ptr %".4", i64 0
  %".676" = load <4 x float>, ptr %".675", align 4
  %".677" = fsub contract <4 x float> %".449", %".676"
  %".678" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".677")
  %".679" = fadd contract <4 x float> %".674", %".678"
  %".680" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".679", ptr %".680", align 4
  %".682" = getelementptr inbounds float, ptr %".5", i64 0
  %".683" = load <4 x float>, ptr %".682", align 4
  %".684" = getelementptr inbounds float, ptr %".4", i64 0
  %".685" = load <4 x float>, ptr %".684", align 4
  %".686" = fsub contract <4 x float> %".450", %".685"
  %".687" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".686")
  %".688" = fadd contract <4 x float> %".683", %".687"
  %".689" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".688", ptr %".689", align 4
  %".691" = getelementptr inbounds float, ptr %".5", i64 0
  %".692" = load <4 x float>, ptr %".691", align 4
  %".693" = getelementptr inbounds float, ptr %".4", i64 0
  %".694" = load <4 x float>, ptr %".693", align 4
  %".695" = fsub contract <4 x float> %".451", %".694"
  %".696" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".695")
  %".697" = fadd contract <4 x float> %".692", %".696"
  %".698" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".697", ptr %".698", align 4
  %".700" = getelementptr inbounds float, ptr %".5", i64 0
  %".701" = load <4 x float>, ptr %".700", align 4
  %".702" = getelementptr inbounds float, ptr %".4", i64 0
  %".703" = load <4 x float>, ptr %".702", align 4
  %".704" = fsub contract <4 x float> %".452", %".703"
  %".705" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".704")
  %".706" = fadd contract <4 x float> %".701", %".705"
  %".707" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".706", ptr %".707", align 4
  %".709" = getelementptr inbounds float, ptr %".5", i64 0
  %".710" = load <4 x float>, ptr %".709", align 4
  %".711" = getelementptr inbounds float, ptr %".4", i64 0
  %".712" = load <4 x float>, ptr %".711", align 4
  %".713" = fsub contract <4 x float> %".453", %".712"
  %".714" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".713")
  %".715" = fadd contract <4 x float> %".710", %".714"
  %".716" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".715", ptr %".716", align 4
  %".718" = getelementptr inbounds float, ptr %".5", i64 0
  %".719" = load <4 x float>, ptr %".718", align 4
  %".720" = getelementptr inbounds float, ptr %".4", i64 0
  %".721" = load <4 x float>, ptr %".720", align 4
  %".722" = fsub contract <4 x float> %".454", %".721"
  %".723" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".722")
  %".724" = fadd contract <4 x float> %".719", %".723"
  %".725" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".724", ptr %".725", align 4
  %".727" = getelementptr inbounds float, ptr %".5", i64 0
  %".728" = load <4 x float>, ptr %".727", align 4
  %".729" = getelementptr inbounds float, ptr %".4", i64 0
  %".730" = load <4 x float>, ptr %".729", align 4
  %".731" = fsub contract <4 x float> %".455", %".730"
  %".732" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".731")
  %".733" = fadd contract <4 x float> %".728", %".732"
  %".734" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".733", ptr %".734", align 4
  %".736" = getelementptr inbounds float, ptr %".5", i64 0
  %".737" = load <4 x float>, ptr %".736", align 4
  %".738" = getelementptr inbounds float, ptr %".4", i64 0
  %".739" = load <4 x float>, ptr %".738", align 4
  %".740" = fsub contract <4 x float> %".456", %".739"
  %".741" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".740")
  %".742" = fadd contract <4 x float> %".737", %".741"
  %".743" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".742", ptr %".743", align 4
  %".745" = getelementptr inbounds float, ptr %".5", i64 0
  %".746" = load <4 x float>, ptr %".745", align 4
  %".747" = getelementptr inbounds float, ptr %".4", i64 0
  %".748" = load <4 x float>, ptr %".747", align 4
  %".749" = fsub contract <4 x float> %".457", %".748"
  %".750" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".749")
  %".751" = fadd contract <4 x float> %".746", %".750"
  %".752" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".751", ptr %".752", align 4
  %".754" = getelementptr inbounds float, ptr %".5", i64 0
  %".755" = load <4 x float>, ptr %".754", align 4
  %".756" = getelementptr inbounds float, ptr %".4", i64 0
  %".757" = load <4 x float>, ptr %".756", align 4
  %".758" = fsub contract <4 x float> %".458", %".757"
  %".759" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".758")
  %".760" = fadd contract <4 x float> %".755", %".759"
  %".761" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".760", ptr %".761", align 4
  %".763" = getelementptr inbounds float, ptr %".5", i64 0
  %".764" = load <4 x float>, ptr %".763", align 4
  %".765" = getelementptr inbounds float, ptr %".4", i64 0
  %".766" = load <4 x float>, ptr %".765", align 4
  %".767" = fsub contract <4 x float> %".459", %".766"
  %".768" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".767")
  %".769" = fadd contract <4 x float> %".764", %".768"
  %".770" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".769", ptr %".770", align 4
  %".772" = getelementptr inbounds float, ptr %".5", i64 0
  %".773" = load <4 x float>, ptr %".772", align 4
  %".774" = getelementptr inbounds float, ptr %".4", i64 0
  %".775" = load <4 x float>, ptr %".774", align 4
  %".776" = fsub contract <4 x float> %".460", %".775"
  %".777" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".776")
  %".778" = fadd contract <4 x float> %".773", %".777"
  %".779" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".778", ptr %".779", align 4
  %".781" = getelementptr inbounds float, ptr %".5", i64 0
  %".782" = load <4 x float>, ptr %".781", align 4
  %".783" = getelementptr inbounds float, ptr %".4", i64 0
  %".784" = load <4 x float>, ptr %".783", align 4
  %".785" = fsub contract <4 x float> %".461", %".784"
  %".786" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".785")
  %".787" = fadd contract <4 x float> %".782", %".786"
  %".788" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".787", ptr %".788", align 4
  %".790" = getelementptr inbounds float, ptr %".5", i64 0
  %".791" = load <4 x float>, ptr %".790", align 4
  %".792" = getelementptr inbounds float, ptr %".4", i64 0
  %".793" = load <4 x float>, ptr %".792", align 4
  %".794" = fsub contract <4 x float> %".462", %".793"
  %".795" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".794")
  %".796" = fadd contract <4 x float> %".791", %".795"
  %".797" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".796", ptr %".797", align 4
  %".799" = getelementptr inbounds float, ptr %".5", i64 0
  %".800" = load <4 x float>, ptr %".799", align 4
  %".801" = getelementptr inbounds float, ptr %".4", i64 0
  %".802" = load <4 x float>, ptr %".801", align 4
  %".803" = fsub contract <4 x float> %".463", %".802"
  %".804" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".803")
  %".805" = fadd contract <4 x float> %".800", %".804"
  %".806" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".805", ptr %".806", align 4
  %".808" = getelementptr inbounds float, ptr %".5", i64 0
  %".809" = load <4 x float>, ptr %".808", align 4
  %".810" = getelementptr inbounds float, ptr %".4", i64 0
  %".811" = load <4 x float>, ptr %".810", align 4
  %".812" = fsub contract <4 x float> %".464", %".811"
  %".813" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".812")
  %".814" = fadd contract <4 x float> %".809", %".813"
  %".815" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".814", ptr %".815", align 4
  %".817" = getelementptr inbounds float, ptr %".5", i64 0
  %".818" = load <4 x float>, ptr %".817", align 4
  %".819" = getelementptr inbounds float, ptr %".4", i64 0
  %".820" = load <4 x float>, ptr %".819", align 4
  %".821" = fsub contract <4 x float> %".465", %".820"
  %".822" = call <4 x float> @"llvm.exp.v4f32"(<4 x float> %".821")
  %".823" = fadd contract <4 x float> %".818", %".822"
  %".824" = getelementptr inbounds float, ptr %".5", i64 0
  store <4 x float> %".823", ptr %".824", align 4
  br label %"softmax_i0.header"
softmax_i0.header:
  %"softmax_i0" = phi  i64 [0, %"body"], [%"softmax_i0.next", %"softmax_i1_o.exit"]
  %".827" = icmp slt i64 %"softmax_i0", 4
  br i1 %".827", label %"softmax_i0.body", label %"softmax_i0.exit"
softmax_i0.body:
  br label %"softmax_i1_o.header"
softmax_i0.exit:
  ret void
softmax_i1_o.header:
  %"softmax_i1_o" = phi  i64 [0, %"softmax_i0.body"], [%"softmax_i1_o.next", %"softmax_i1_o.body"]
  %".830" = icmp slt i64 %"softmax_i1_o", 2
  br i1 %".830", label %"softmax_i1_o.body", label %"softmax_i1_o.exit"
softmax_i1_o.body:
  %".832" = mul i64 %"softmax_i0", 40
  %".833" = mul i64 %"softmax_i1_o", 16
  %".834" = add i64 %".832", %".833"
  %".835" = mul i64 %"softmax_i0", 40
  %".836" = mul i64 %"softmax_i1_o", 16
  %".837" = add i64 %".835", %".836"
  %".838" = getelementptr inbounds float, ptr %"p0", i64 %".837"
  %".839" = load <16 x float>, ptr %".838", align 4
  %".840" = getelementptr inbounds float, ptr %".4", i64 %"softmax_i0"
  %".841" = load float, ptr %".840", align 4
  %".842" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".841", i32 0
  %".843" = shufflevector <16 x float> %".842", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".844" = fsub contract <16 x float> %".839", %".843"
  %".845" = call <16 x float> @"llvm.exp.v16f32"(<16 x float> %".844")
  %".846" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".847" = load float, ptr %".846", align 4
  %".848" = insertelement <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".847", i32 0
  %".849" = shufflevector <16 x float> %".848", <16 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <16 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".850" = fdiv <16 x float> %".845", %".849"
  %".851" = getelementptr inbounds float, ptr %"softmax", i64 %".834"
  store <16 x float> %".850", ptr %".851", align 4
  %"softmax_i1_o.next" = add nsw i64 %"softmax_i1_o", 1
  br label %"softmax_i1_o.header"
softmax_i1_o.exit:
  %".854" = mul i64 %"softmax_i0", 40
  %".855" = add i64 %".854", 32
  %".856" = mul i64 %"softmax_i0", 40
  %".857" = add i64 %".856", 32
  %".858" = getelementptr inbounds float, ptr %"p0", i64 %".857"
  %".859" = load <8 x float>, ptr %".858", align 4
  %".860" = getelementptr inbounds float, ptr %".4", i64 %"softmax_i0"
  %".861" = load float, ptr %".860", align 4
  %".862" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".861", i32 0
  %".863" = shufflevector <8 x float> %".862", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".864" = fsub contract <8 x float> %".859", %".863"
  %".865" = call <8 x float> @"llvm.exp.v8f32"(<8 x float> %".864")
  %".866" = getelementptr inbounds float, ptr %".5", i64 %"softmax_i0"
  %".867" = load float, ptr %".866", align 4
  %".868" = insertelement <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, float %".867", i32 0
  %".869" = shufflevector <8 x float> %".868", <8 x float> <float undef, float undef, float undef, float undef, float undef, float undef, float undef, float undef>, <8 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
  %".870" = fdiv <8 x float> %".865", %".869"
  %".871" = getelementptr inbounds float, ptr %"softmax", i64 %".855"
  store <8 x float> %".870", ptr %".871", align 4
  %"softmax_i0.next" = add nsw i64 %"softmax_i0", 1
  br label %"softmax_i0.header"
}

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
