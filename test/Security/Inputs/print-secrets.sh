#!/bin/sh
# Stands in for an engine (a router, which --simulate runs as given) whose
# log prints secrets of every form, then keeps running like a server.
echo "HF_TOKEN=$HF_TOKEN"
echo "GH_TOKEN=$GH_TOKEN"
echo "alone: $MY_API_KEY $OPERATOR_SECRET"
echo "{\"api_key\": \"SeCrEtLog16\"} {'api_key': 'SeCrEtLog17'}"
echo "Authorization: Bearer SeCrEtLog18"
echo "postgres://u:SeCrEtLog19@db/x"
echo "DB_PASSWORD=SeCrEtLog20 --token SeCrEtLog21"
exec sleep 1000
