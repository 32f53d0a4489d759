package frame

import "time"

// parseUTCStamp reads the timestamp most recorders write, "2006-01-02T15:04:05Z"
// with an optional fraction of 1 to 9 digits, without time.Parse's generality:
// one per frame adds up. ok=false for anything else (another offset, a space
// separator, an out-of-range field), which time.Parse then reads or rejects; for
// what it accepts it gives exactly time.Parse's result.
func parseUTCStamp(s string) (t time.Time, ok bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return t, false
	}
	year, ok1 := decimal(s[0:4])
	month, ok2 := decimal(s[5:7])
	day, ok3 := decimal(s[8:10])
	hour, ok4 := decimal(s[11:13])
	minute, ok5 := decimal(s[14:16])
	sec, ok6 := decimal(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return t, false
	}
	nsec := 0
	switch rest := s[19 : len(s)-1]; {
	case rest == "":
	case rest[0] == '.' && len(rest) >= 2 && len(rest) <= 10:
		frac, ok := decimal(rest[1:])
		if !ok {
			return t, false
		}
		nsec = frac
		for n := len(rest) - 1; n < 9; n++ {
			nsec *= 10
		}
	default:
		return t, false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return t, false
	}
	days := daysFromCivil(year, month, day)
	return time.Unix(days*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC(), true
}

// daysFromCivil counts the days from 1970-01-01 to a date of the proleptic
// Gregorian calendar (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y >= -1: the year field has four digits
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// decimal reads a run of decimal digits (at most 9, so it cannot overflow).
func decimal(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(s) > 0
}

func daysIn(m time.Month, year int) int {
	switch m {
	case time.February:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}
