# Shared look of the SACC plots (loaded by each script): SVG, white
# background, a light grid. The caller sets outfile and the data files.
set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'
set output outfile
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1 dt 1
set key top left box opaque
set border lc rgb '#444444'
set style line 1 lc rgb '#1f77b4' lw 2.5 pt 7 ps 0.8
set style line 2 lc rgb '#d62728' lw 2.5 pt 5 ps 0.8
set style line 3 lc rgb '#2ca02c' lw 2.5 pt 9 ps 0.9
set style line 4 lc rgb '#9467bd' lw 2.5 pt 11 ps 0.9
set style line 5 lc rgb '#ff7f0e' lw 2.5 pt 13 ps 0.9
# sizes 8 B .. 1 MiB on a log2 axis with readable labels
set macros
sizetics = "set xtics ('8 B' 8, '64 B' 64, '512 B' 512, '4 KiB' 4096, '32 KiB' 32768, '256 KiB' 262144, '1 MiB' 1048576)"
