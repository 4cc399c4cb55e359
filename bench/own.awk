# bench/own.awk: self instructions per object in a callgrind dump (its ob=, cob=
# and calls= lines), one "object Ir" line each: what ran in libdevcheck.so itself.
function named(s,   id, rest) {
    if (match(s, /^\([0-9]+\)/)) { id = substr(s, RSTART, RLENGTH); rest = substr(s, RLENGTH + 2); if (rest != "") name[id] = rest; return id }
    return s
}
/^ob=/ { cur = named(substr($0, 4)); next }
/^cob=/ { named(substr($0, 5)); next }
/^calls=/ { skip = 1; next }
/^[0-9+*-]/ { if (skip) { skip = 0; next } n = split($0, f, " "); if (n >= 2) own[cur] += f[2]; next }
END { for (k in own) print (k in name ? name[k] : k), own[k] }
