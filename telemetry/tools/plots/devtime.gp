# Inline vs the copy engine, the seed paper's way: the device's time per
# op from TIMESTAMPs inside one segment, beside the API time of one op.
# Data: datafile columns: size inline_dev_us memcpy_dev_us inline_api_us memcpy_api_us
# ('-' where a kind has no point: WRITE_INLINE stops at 4 KiB)
load scriptdir.'/common.gp'
set title "WRITE\\_INLINE vs MEMCPY: device time per op (TIMESTAMPs in one segment) and API time\n{/*0.8 ".subtitle."}"
set xlabel 'bytes per op (log scale)'
set ylabel 'time per op (µs, log scale)'
set logscale xy
@sizetics
set xrange [6:1400000]
set format y '%g'
set datafile missing '-'
set key top left
if (crossover > 0) {
    set arrow from crossover, graph 0 to crossover, graph 1 nohead lc rgb '#888888' dt 2 lw 1.5
    set label sprintf('device-time crossover: %s', crosslabel) at crossover, graph 0.97 right rotate by 90 offset 1.2,0 tc rgb '#555555'
}
plot datafile using 1:2 with linespoints ls 1 title 'inline, device time', \
     datafile using 1:3 with linespoints ls 2 title 'MEMCPY, device time', \
     datafile using 1:4 with lines ls 1 dt 3 lw 1.5 title 'inline, API time (median)', \
     datafile using 1:5 with lines ls 2 dt 3 lw 1.5 title 'MEMCPY, API time (median)'
