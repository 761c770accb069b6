cat <<EOF
torchrun pretrain_gpt.py
