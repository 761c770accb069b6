X='$X$X'
X="$X$X"
Y=${Y:=$Y}
torchrun pretrain_gpt.py $X $Y
