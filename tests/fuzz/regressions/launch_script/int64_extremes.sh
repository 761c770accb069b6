A=$((9223372036854775807))
B=$((-9223372036854775808))
if [ 99999999999999999999 -gt 1 ]; then X=1; fi
if [[ 9223372036854775807 -gt -9223372036854775807 ]]; then Y=1; fi
torchrun pretrain_gpt.py --num-layers $A --hidden-size $B
