#!/bin/bash
ARGS=(
    --num-layers 96
    --tokenizer-model "meta-llama/Llama-3
)
torchrun pretrain_gpt.py ${ARGS[@]}
