#!/bin/bash
GPUS=8
ARGS=(
  --num-layers 2 \
  --hidden-size 64
)
torchrun --nproc_per_node $GPUS pretrain_gpt.py ${ARGS[@]}
