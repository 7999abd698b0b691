#!/usr/bin/env bash
# dyn34's second device call (the bundle of the first plus conv3d_igemm_check built at d100449,
# carried as build-dyn34/.gpu): the one-channel 3^3 weight gradient's two kernels in turns.
B=build-dyn34/.gpu; . $B/nvidia-opencl-env.sh; nvidia_opencl_env $B/lib; mkdir -p $OUT/n; STAGEBENCH_WGMMA=off timeout -s INT 32 $B/conv3d_igemm_check narrow-dw 20 > $OUT/n/narrow-dw.txt 2>&1; echo "rc=$?" >> $OUT/n/narrow-dw.txt; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >> $OUT/n/narrow-dw.txt; cat $OUT/n/narrow-dw.txt
