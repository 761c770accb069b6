#!/bin/bash
GPUS=8
A=(
  --num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024
  --vocab-size 32000 --micro-batch-size 1
  --tensor-model-parallel-size 4294967296 --pipeline-model-parallel-size 4294967296
)
torchrun --nproc_per_node 4294967297 --nnodes 4294967297 pretrain_gpt.py ${A[@]}
