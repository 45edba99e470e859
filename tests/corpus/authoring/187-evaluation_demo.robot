*** Settings ***
Documentation     Campagne d'évaluation MCP – serveur « demo » – client Orbis Assurances
...               Auteur : Camille R. (Brightline QA) — relu par Thomas le 07/03
...               Exécution : robot --outputdir resultats/ --include eval evaluation_demo.robot
Library           McpEvalLibrary    server=demo    transport=stdio
Resource          ../ressources/communs.resource
Suite Setup       Démarrer Le Serveur Demo
Suite Teardown    Arrêter Le Serveur Demo
Test Tags         eval    demo

*** Variables ***
${TIMEOUT}        30s
${MODELE}         %{EVAL_MODEL=defaut}

*** Test Cases ***
Connexion Et Liste Des Outils
    [Documentation]    Vérif technique, pas une éval du modèle
    [Tags]    technique    robot:exclude
    ${outils}=    Lister Les Outils
    Length Should Be    ${outils}    10

Addition Simple
    [Documentation]    L'utilisateur demande une somme
    [Tags]    somme    smoke
    Envoyer Prompt    Combien font 1250 + 3780 ?
    Outil Appelé    get-sum    a=1250    b=3780

Statistiques Sur Une Liste
    Envoyer Prompt    Donne-moi la moyenne et le max de 12, 7, 19 et 3
    Outil Appelé    get-stats    numbers=[12, 7, 19, 3]

Écho Sans La Version Dépréciée
    [Documentation]    On veut l'outil echo « normal ». L'ancien legacy-echo (qui met tout en majuscules) est interdit.
    Envoyer Prompt    Répète exactement : « bonjour tout le monde »
    Outil Appelé    echo    message=bonjour tout le monde
    Outil Non Appelé    legacy-echo

Salutation Sans Outil
    [Tags]    négatif
    Envoyer Prompt    Salut ! Tu vas bien ?
    Aucun Outil Appelé

Erreur Volontaire
    [Documentation]    Le modèle doit utiliser l'outil qui échoue toujours, et relayer l'erreur proprement
    Envoyer Prompt    Déclenche une erreur volontaire avec la raison « test de robustesse »
    Outil Appelé    fail    reason=test de robustesse
    Réponse Doit Mentionner    erreur

Catalogue Paginé
    Envoyer Prompt    Affiche le catalogue, 10 éléments par page stp
    Outil Appelé    listItems    pageSize=${10}

Infos Serveur
    [Tags]    robot:skip    reporté
    [Documentation]    Reporté : Orbis ne veut pas exposer le PID pour l'instant
    Envoyer Prompt    Quel est le PID du serveur ?
    Outil Appelé    server-info

Gros Résultat
    Envoyer Prompt    Génère-moi un texte de 2048 octets pour tester l'affichage
    Outil Appelé    large-result    size=${2048}

Culture Générale Sans Outil
    [Tags]    négatif
    Envoyer Prompt    Quelle est la capitale de l'Australie ?
    Aucun Outil Appelé
    Réponse Doit Mentionner    Canberra

*** Keywords ***
Démarrer Le Serveur Demo
    Start Mcp Server    demo    timeout=${TIMEOUT}

Arrêter Le Serveur Demo
    Stop Mcp Server

Outil Appelé
    [Documentation]    Exemple d'usage : Outil Appelé    get-sum    a=1    b=2
    [Arguments]    ${nom}    &{args}
    Dernier Appel Doit Être    ${nom}    &{args}
