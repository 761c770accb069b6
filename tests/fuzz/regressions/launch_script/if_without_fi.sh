DTYPE=fp8
if [[ "$DTYPE" == "fp8" ]]; then
    DTYPE_ARGS+=( --fp8-format hybrid )
torchrun pretrain_gpt.py ${DTYPE_ARGS[@]}
