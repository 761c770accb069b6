if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
if true; then
torchrun pretrain_gpt.py
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
fi
