a=a
b='a+b'
NUM_LAYERS=$((a))
torchrun pretrain_gpt.py --num-layers $NUM_LAYERS
