int dc_next_target(void);
int dc_next_target(void) { return 2; }
